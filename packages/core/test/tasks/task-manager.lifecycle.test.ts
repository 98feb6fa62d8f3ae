import {
  TaskError,
  TaskEvent,
  TaskFailure,
  TaskInfo,
  TaskManager,
  type JsonObject,
  type TaskBody,
} from '@robot-mcp-kit/core';
import { TaskArgumentError } from '@robot-mcp-kit/core/host';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { RecordingSink, finished } from './task-test.helpers.js';

function setup(): { manager: TaskManager; sink: RecordingSink; clock: ManualClock; logger: MemoryLogger } {
  const sink = new RecordingSink();
  const clock = new ManualClock(Date.UTC(2026, 5, 12, 14, 3, 0, 123));
  const logger = new MemoryLogger();
  const manager = new TaskManager({ serverName: 'navigation', poster: sink, clock, logger });
  return { manager, sink, clock, logger };
}

/** A TaskManager whose event sink throws on every post. */
function throwingSinkManager(): { manager: TaskManager; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  const post = (): never => {
    throw new Error('sink down');
  };
  return { manager: new TaskManager({ serverName: 'nav', logger, poster: { post } }), logger };
}

describe('TaskManager lifecycle', () => {
  it('returns a running TaskInfo at once and runs the body on a later microtask', async () => {
    const { manager, sink } = setup();
    let ran = false;
    const info = manager.start(
      'navigate_to',
      async () => {
        ran = true;
        return {};
      },
      { estDurationS: 30 },
    );
    expect(info).toBeInstanceOf(TaskInfo);
    expect(info.state).toBe('running');
    expect(info.tool).toBe('navigate_to');
    expect(info.server).toBe('navigation');
    expect(info.est_duration_s).toBe(30);
    expect(info.created_at.toISOString()).toBe('2026-06-12T14:03:00.123Z');
    expect(ran).toBe(false);
    expect(sink.events).toHaveLength(0);
    expect(manager.runningCount).toBe(1);
    await finished(manager, info.task_id);
    expect(ran).toBe(true);
    expect(manager.runningCount).toBe(0);
  });

  it('emits progress in order with contiguous seq from 1, then task_done with the result', async () => {
    const { manager, sink, clock } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      for (const percent of [10, 50, 90]) {
        await ctx.progress({ percent, eta_s: 100 - percent });
        await ctx.sleep(1000);
      }
      return { arrived: true, pose: { x: 1, y: 2 } };
    });
    const done = finished(manager, info.task_id);
    await clock.advance(3000);
    const final = await done;

    const events = sink.of(info.task_id);
    expect(events.map((e) => e.type)).toEqual(['progress', 'progress', 'progress', 'task_done']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(events.map((e) => e.payload)).toEqual([
      { percent: 10, eta_s: 90 },
      { percent: 50, eta_s: 50 },
      { percent: 90, eta_s: 10 },
      { result: { arrived: true, pose: { x: 1, y: 2 } } },
    ]);
    for (const event of events) {
      expect(event.event_id).toMatch(/^[0-9a-f]{32}$/);
      expect(event.server).toBe('navigation');
      expect(event.tool).toBe('navigate_to');
      expect(event.task_id).toBe(info.task_id);
      expect(event.schema_version).toBe(1);
    }
    expect(new Set(events.map((e) => e.event_id)).size).toBe(4);
    expect(events[0]!.ts.toISOString()).toBe('2026-06-12T14:03:00.123Z');
    expect(events[3]!.ts.toISOString()).toBe('2026-06-12T14:03:03.123Z');

    expect(final.state).toBe('succeeded');
    expect(final.result).toEqual({ arrived: true, pose: { x: 1, y: 2 } });
    expect(final.progress).toEqual({ percent: 90, eta_s: 10 });
    expect(final.failure).toBeNull();
    expect(final.updated_at.toISOString()).toBe('2026-06-12T14:03:03.123Z');
  });

  it('records progress in TaskInfo.progress while running', async () => {
    const { manager, clock } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress({ percent: 40 });
      await ctx.sleep(1000);
      return {};
    });
    await clock.advance(0);
    expect(manager.get(info.task_id)?.progress).toEqual({ percent: 40 });
    expect(manager.get(info.task_id)?.state).toBe('running');
    await clock.advance(1000);
    expect(manager.get(info.task_id)?.state).toBe('succeeded');
  });

  it('fails with the structured failure of a TaskError', async () => {
    const { manager, sink } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress({ percent: 5 });
      throw new TaskError('DOOR_CLOSED', 'The door to room 4 is closed.', {
        recoverable: true,
        suggestions: ['ask_reception', 'retry_after_s:300'],
      });
    });
    const final = await finished(manager, info.task_id);
    expect(final.state).toBe('failed');
    expect(final.failure).toBeInstanceOf(TaskFailure);
    expect(final.failure?.toJSON()).toEqual({
      error_code: 'DOOR_CLOSED',
      message: 'The door to room 4 is closed.',
      recoverable: true,
      suggestions: ['ask_reception', 'retry_after_s:300'],
    });
    expect(final.result).toBeNull();
    const events = sink.of(info.task_id);
    expect(events.map((e) => [e.type, e.seq])).toEqual([
      ['progress', 1],
      ['task_failed', 2],
    ]);
    expect(JSON.stringify(events[1]!.payload)).toBe(
      '{"error_code":"DOOR_CLOSED","message":"The door to room 4 is closed.","recoverable":true,' +
        '"suggestions":["ask_reception","retry_after_s:300"]}',
    );
  });

  it('fails INTERNAL, not recoverable, on an unexpected error, and logs it with its stack', async () => {
    const { manager, sink, logger } = setup();
    const info = manager.start('navigate_to', async () => {
      throw new RangeError('wheel odometry overflow');
    });
    const final = await finished(manager, info.task_id);
    expect(final.state).toBe('failed');
    expect(final.failure?.toJSON()).toEqual({
      error_code: 'INTERNAL',
      message: 'wheel odometry overflow',
      recoverable: false,
      suggestions: [],
    });
    expect(sink.typesOf(info.task_id)).toEqual(['task_failed']);
    const [entry] = logger.at('error', 'unexpected error');
    expect(entry?.meta.task_id).toBe(info.task_id);
    expect(String(entry?.meta.stack)).toContain('RangeError: wheel odometry overflow');
  });

  it.each([
    ['a number', 42, '42'],
    ['a string', 'boom', 'boom'],
    ['undefined', undefined, 'undefined'],
  ])('fails INTERNAL when the body rejects with %s', async (_what, value, message) => {
    const { manager } = setup();
    const info = manager.start('navigate_to', () => Promise.reject(value));
    const final = await finished(manager, info.task_id);
    expect(final.failure?.error_code).toBe('INTERNAL');
    expect(final.failure?.message).toBe(message);
    expect(final.failure?.recoverable).toBe(false);
  });

  it('fails INTERNAL when the body throws synchronously', async () => {
    const { manager } = setup();
    const body = ((): Promise<JsonObject> => {
      throw new Error('not async');
    }) as TaskBody;
    const final = await finished(manager, manager.start('navigate_to', body).task_id);
    expect(final.failure?.message).toBe('not async');
  });

  class Pose {
    x = 1;
  }
  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'done'],
    ['a number', 7],
    ['undefined', undefined],
    ['an instance of Pose', new Pose()],
    ['an instance of Map', new Map()],
  ])('fails INTERNAL when the body returns %s', async (what, value) => {
    const { manager, sink } = setup();
    const info = manager.start('navigate_to', async () => value as unknown as JsonObject);
    const final = await finished(manager, info.task_id);
    expect(final.state).toBe('failed');
    expect(final.failure?.error_code).toBe('INTERNAL');
    expect(final.failure?.recoverable).toBe(false);
    expect(final.failure?.message).toContain(`returned ${what}`);
    expect(final.failure?.message).toContain('plain JSON object');
    expect(sink.typesOf(info.task_id)).toEqual(['task_failed']);
  });

  it.each([
    ['a BigInt', (): JsonObject => ({ count: 10n })],
    [
      'a cycle',
      (): JsonObject => {
        const result: JsonObject = { a: 1 };
        result.self = result;
        return result;
      },
    ],
  ])('fails INTERNAL when the result holds %s (not JSON-serializable)', async (_what, make) => {
    const { manager } = setup();
    const info = manager.start('navigate_to', async () => make());
    const final = await finished(manager, info.task_id);
    expect(final.failure?.error_code).toBe('INTERNAL');
    expect(final.failure?.message).toContain('not JSON-serializable');
    expect(final.failure?.message).toContain('plain JSON object');
  });

  it('accepts a null-prototype object as the result', async () => {
    const { manager } = setup();
    const result = Object.assign(Object.create(null) as JsonObject, { ok: true });
    const final = await finished(manager, manager.start('t', async () => result).task_id);
    expect(final.state).toBe('succeeded');
    expect(final.result).toEqual({ ok: true });
  });

  it('emits watch_event for ctx.emit', async () => {
    const { manager, sink } = setup();
    const info = manager.start('watch_for', async (ctx) => {
      await ctx.emit({ object: 'cup', confidence: 0.9 });
      return { seen: 1 };
    });
    await finished(manager, info.task_id);
    expect(sink.of(info.task_id).map((e) => [e.type, e.payload])).toEqual([
      ['watch_event', { object: 'cup', confidence: 0.9 }],
      ['task_done', { result: { seen: 1 } }],
    ]);
  });

  it.each([
    ['an array', [1]],
    ['null', null],
    ['a string', 'fast'],
    ['a class instance', new Date(0)],
  ])('rejects a progress or emit payload that is %s, naming payload', async (_what, payload) => {
    const { manager, sink } = setup();
    const errors: unknown[] = [];
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress(payload as unknown as JsonObject).catch((e: unknown) => errors.push(e));
      await ctx.emit(payload as unknown as JsonObject).catch((e: unknown) => errors.push(e));
      return {};
    });
    await finished(manager, info.task_id);
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(TaskArgumentError);
      expect((error as TaskArgumentError).argument).toBe('payload');
      expect((error as Error).message).toMatch(/^payload: expected a plain JSON object/);
    }
    expect(sink.typesOf(info.task_id)).toEqual(['task_done']);
  });

  it('rejects a non-serializable progress payload; uncaught it fails the task INTERNAL', async () => {
    const { manager } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress({ big: 1n });
      return {};
    });
    const final = await finished(manager, info.task_id);
    expect(final.failure?.message).toMatch(/^payload: .*not JSON-serializable/);
  });

  it('keeps its own copies: callers cannot change stored triggers, progress or results', async () => {
    const { manager } = setup();
    const triggers = [{ type: 'progress_above', percent: 50, meta: { tag: 'a' } }];
    const progress = { percent: 10, nested: { a: 1 } };
    const result = { ok: true, list: [1] };
    const info = manager.start(
      'navigate_to',
      async (ctx) => {
        await ctx.progress(progress);
        progress.nested.a = 2;
        expect(Object.isFrozen(ctx.triggers[0])).toBe(true);
        return result;
      },
      { triggers },
    );
    triggers[0]!.percent = 99;
    triggers[0]!.meta.tag = 'b';
    await finished(manager, info.task_id);
    result.list.push(2);

    const snapshot = manager.get(info.task_id)!;
    expect(snapshot.triggers).toEqual([{ type: 'progress_above', percent: 50, meta: { tag: 'a' } }]);
    expect(snapshot.progress).toEqual({ percent: 10, nested: { a: 1 } });
    expect(snapshot.result).toEqual({ ok: true, list: [1] });

    snapshot.triggers.push({ type: 'x' });
    snapshot.state = 'failed';
    snapshot.updated_at.setTime(0);
    expect(() => {
      (snapshot.result as { list: number[] }).list.push(3);
    }).toThrow(TypeError);
    const again = manager.get(info.task_id)!;
    expect(again).not.toBe(snapshot);
    expect(again.triggers).toHaveLength(1);
    expect(again.state).toBe('succeeded');
    expect(again.updated_at.getTime()).not.toBe(0);
  });

  it('keeps a failure snapshot independent of the stored failure', async () => {
    const { manager } = setup();
    const info = manager.start('t', async () => {
      throw new TaskError('E', 'm', { suggestions: ['a'] });
    });
    const first = await finished(manager, info.task_id);
    first.failure!.suggestions.push('b');
    first.failure!.error_code = 'CHANGED';
    expect(manager.get(info.task_id)?.failure?.toJSON()).toEqual({
      error_code: 'E',
      message: 'm',
      recoverable: true,
      suggestions: ['a'],
    });
  });

  it('logs a throwing sink and keeps the task going', async () => {
    const { manager, logger } = throwingSinkManager();
    const final = await finished(
      manager,
      manager.start('t', async (ctx) => {
        await ctx.progress({ percent: 1 });
        return { ok: 1 };
      }).task_id,
    );
    expect(final.state).toBe('succeeded');
    expect(logger.at('error', 'event sink threw')).toHaveLength(2);
  });

  it('hands observers changes whose own fields are only the public ones (the record stays private)', async () => {
    const { manager } = setup();
    const keys: string[][] = [];
    manager.onChange((change) => keys.push(Object.keys(change).sort()));
    const info = manager.start('t', async () => ({ ok: 1 }));
    await finished(manager, info.task_id);
    expect(keys[0]).toEqual(['event', 'kind', 'origin', 'state', 'taskId']);
    expect(keys.every((k) => !k.includes('record') && !k.includes('snapshot'))).toBe(true);
    await manager.aclose({ flush: false });
  });

  it('relays an event to observers even when the sink throws, and logs the loss', async () => {
    const { manager, logger } = throwingSinkManager();
    const seen: string[] = [];
    manager.onChange((change) => seen.push(`${change.kind}:${change.relayed ? 'relayed' : 'own'}`));
    const event = TaskEvent.create({
      event_id: 'e-relay-1',
      task_id: 'nav-lost01',
      server: 'nav',
      tool: 't',
      type: 'task_failed',
      seq: 3,
      ts: new Date(Date.UTC(2026, 0, 1)),
      payload: { error_code: 'REPLICA_LOST', message: 'lost', recoverable: true, suggestions: [] },
    });
    const info = TaskInfo.create({
      task_id: 'nav-lost01',
      server: 'nav',
      tool: 't',
      state: 'failed',
      created_at: new Date(Date.UTC(2026, 0, 1)),
      updated_at: new Date(Date.UTC(2026, 0, 1)),
    });
    expect(() => manager.relay(event, info)).not.toThrow();
    expect(seen).toEqual(['event:relayed']);
    expect(logger.at('error', 'threw on relayed task_failed of task nav-lost01')).toHaveLength(1);
    await manager.aclose({ flush: false });
  });

  it('validates start arguments, starting nothing', () => {
    const { manager } = setup();
    const body: TaskBody = async () => ({});
    expect(() => manager.start('', body)).toThrow(/^tool: /);
    expect(() => manager.start('t', 'nope' as unknown as TaskBody)).toThrow(
      /^body: expected an async function/,
    );
    expect(() => manager.start('t', body, { estDurationS: -1 })).toThrow(TaskArgumentError);
    expect(() => manager.start('t', body, { estDurationS: Number.NaN })).toThrow(/^estDurationS: /);
    expect(manager.list()).toEqual([]);
    expect(manager.start('t', body, { estDurationS: null }).est_duration_s).toBeNull();
  });
});
