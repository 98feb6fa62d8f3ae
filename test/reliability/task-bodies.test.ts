import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  EventPoster,
  type TaskBody,
  type TaskContext,
  type TaskInfo,
  TaskManager,
} from '@robot-mcp-kit/core';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { rejectionRecorder } from './helpers/rig.js';
import { turns, until } from './helpers/drive.js';

// Task bodies that misbehave: throw what is not an Error, never settle, ignore cancellation,
// return what is not a JSON object. Each task must end in a defined state with a clear failure.
const rejections = rejectionRecorder();
beforeAll(() => rejections.install());
afterAll(() => {
  rejections.remove();
  expect(rejections.seen).toEqual([]);
});

function setup() {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const transport = new InMemoryEventTransport();
  const poster = new EventPoster({ serverName: 'hostile', transport, clock, logger });
  const manager = new TaskManager({ serverName: 'hostile', poster, clock, logger, cancelGraceMs: 3000 });
  const eventsOf = (id: string) => transport.events.filter((e) => e.task_id === id);
  return { clock, logger, transport, poster, manager, eventsOf };
}

/** Runs one body to its end and returns the final TaskInfo and its events. */
async function runToEnd(body: unknown) {
  const s = setup();
  const { task_id: id } = s.manager.start('hostile', body as TaskBody);
  await until(() => s.manager.get(id)!.state !== 'running', 'the task to end', 5000);
  expect(await s.poster.flush()).toBe(true);
  return { ...s, id, info: s.manager.get(id)!, events: s.eventsOf(id) };
}

function expectCleanFailure(
  info: TaskInfo,
  events: { type: string; payload: unknown }[],
  message: RegExp,
): void {
  expect(info.state).toBe('failed');
  expect(info.failure).toMatchObject({ error_code: 'INTERNAL', recoverable: false });
  expect(info.failure!.message).toMatch(message);
  expect(info.failure!.message.length).toBeLessThanOrEqual(2100);
  expect(events.map((e) => e.type)).toEqual(['task_failed']);
  expect(events[0]!.payload).toEqual(JSON.parse(JSON.stringify(info.failure)));
}

const throwingProxy = new Proxy(
  {},
  {
    get: () => {
      throw new Error('get trap');
    },
    getPrototypeOf: () => {
      throw new Error('getPrototypeOf trap');
    },
    ownKeys: () => {
      throw new Error('ownKeys trap');
    },
    has: () => {
      throw new Error('has trap');
    },
  },
);
class MessageBomb extends Error {
  override get message(): string {
    throw new Error('message getter');
  }
}

describe('task bodies that throw what is not an Error', () => {
  const cases: [string, () => unknown, RegExp][] = [
    ['a string', () => 'plain string', /plain string/],
    ['a number', () => 42, /42/],
    ['null', () => null, /null/],
    ['undefined', () => undefined, /undefined/],
    ['a plain object', () => ({ code: 7 }), /object/],
    ['a symbol', () => Symbol('sym'), /Symbol\(sym\)|symbol/],
    ['a bigint', () => 10n, /10/],
    ['an object without prototype', () => Object.create(null) as object, /object/],
    [
      'an object whose toString throws',
      () => ({
        toString: () => {
          throw new Error('no');
        },
      }),
      /object/,
    ],
    ['a Proxy whose every trap throws', () => throwingProxy, /\S/],
    ['an Error whose message getter throws', () => new MessageBomb(), /\S/],
    ['an Error with a 5 MB message', () => new Error('m'.repeat(5_000_000)), /^m+/],
  ];
  it.each(cases)('%s: failed INTERNAL with a readable message', async (_name, make, message) => {
    const thrown = make();
    const { info, events, logger } = await runToEnd(async () => {
      await Promise.resolve();
      throw thrown;
    });
    expectCleanFailure(info, events, message);
    expect(logger.at('error').length).toBeGreaterThanOrEqual(1);
  });

  it('a body that throws synchronously (not async) fails the same way', async () => {
    const thrown: unknown = 'sync';
    const { info, events } = await runToEnd(() => {
      throw thrown;
    });
    expectCleanFailure(info, events, /sync/);
  });
});

describe('task bodies that return what is not a JSON object', () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  const cases: [string, unknown, RegExp][] = [
    ['a BigInt field', { n: 10n }, /not JSON-serializable/],
    ['a cycle', cycle, /not JSON-serializable/],
    ['undefined', undefined, /undefined/],
    ['a string', 'done', /string/],
    ['an array', [1, 2], /array/],
    ['a Map', new Map([['a', 1]]), /Map/],
    ['a function', () => 1, /function/],
    [
      'a throwing getter',
      {
        get boom() {
          throw new Error('getter');
        },
      },
      /getter/,
    ],
    [
      'a toJSON that throws',
      {
        toJSON: () => {
          throw new Error('toJSON');
        },
      },
      /toJSON/,
    ],
    ['a toJSON that returns a number', { toJSON: () => 3 }, /number/],
    ['a 5 MB result', { blob: 'x'.repeat(5 * 1024 * 1024) }, /bytes/],
  ];
  it.each(cases)('%s: failed INTERNAL, saying what a body must return', async (_name, value, message) => {
    const { info, events } = await runToEnd(async () => value);
    expectCleanFailure(info, events, message);
  });

  it('a huge progress payload is refused at ctx.progress, and the body can go on', async () => {
    let refused = '';
    const { info, events } = await runToEnd(async (ctx: TaskContext) => {
      try {
        await ctx.progress({ blob: 'p'.repeat(5 * 1024 * 1024) });
      } catch (error) {
        refused = (error as Error).message;
      }
      await ctx.progress({ percent: 100 });
      return { ok: true };
    });
    expect(refused).toMatch(/payload: .*bytes/);
    expect(info.state).toBe('succeeded');
    expect(events.map((e) => e.type)).toEqual(['progress', 'task_done']);
  });
});

describe('task bodies that never settle or ignore cancellation', () => {
  it('never settles: running until cancelled; cancel ends it after the grace, with a warning', async () => {
    const s = setup();
    const { task_id: id } = s.manager.start('hostile', () => new Promise<never>(() => undefined));
    await turns();
    expect(s.manager.get(id)!.state).toBe('running');
    let answer: TaskInfo | undefined;
    const cancelling = s.manager.cancel(id).then((info) => (answer = info));
    await turns();
    expect(s.manager.get(id)!.state).toBe('cancelled');
    expect(answer).toBeUndefined();
    await s.clock.advance(3000);
    await cancelling;
    expect(answer!.state).toBe('cancelled');
    expect(s.logger.at('warn', 'ignored cancellation')).toHaveLength(1);
    expect(s.eventsOf(id)).toEqual([]);
    expect(s.manager.runningCount).toBe(0);
  });

  it('never settles: shutdown cancels it within the grace and the manager closes', async () => {
    const s = setup();
    const ids = Array.from(
      { length: 5 },
      () => s.manager.start('hostile', () => new Promise<never>(() => undefined)).task_id,
    );
    const closing = s.manager.aclose();
    await turns();
    await s.clock.advance(3000);
    await closing;
    expect(ids.map((id) => s.manager.get(id)!.state)).toEqual(ids.map(() => 'cancelled'));
    expect(s.transport.closed).toBe(true);
  });

  it('ignores cancellation and keeps reporting: its later events are dropped, no terminal event', async () => {
    const s = setup();
    let keepGoing = true;
    let reportsAfterCancel = 0;
    const { task_id: id } = s.manager.start('hostile', async (ctx) => {
      while (keepGoing) {
        await ctx.progress({ percent: 1 });
        await ctx.emit({ still: 'here' });
        if (ctx.signal.aborted) reportsAfterCancel += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { finished: 'anyway' };
    });
    await turns(5);
    const before = s.eventsOf(id).length;
    expect(before).toBeGreaterThan(0);
    const cancelling = s.manager.cancel(id);
    await turns(10);
    await s.clock.advance(3000);
    await cancelling;
    keepGoing = false;
    await turns(5);
    await s.poster.flush();
    expect(reportsAfterCancel).toBeGreaterThan(0);
    const info = s.manager.get(id)!;
    expect(info.state).toBe('cancelled');
    expect(info.result).toBeNull();
    const events = s.eventsOf(id);
    expect(events).toHaveLength(before);
    expect(events.some((e) => e.type === 'task_done' || e.type === 'task_failed')).toBe(false);
    expect(s.logger.at('warn', 'ignored cancellation')).toHaveLength(1);
  });
});
