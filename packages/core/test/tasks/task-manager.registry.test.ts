import {
  ConfigError,
  TaskManager,
  TriggerRegistry,
  type Clock,
  type Logger,
  type TaskManagerOptions,
  type TaskState,
} from '@robot-mcp-kit/core';
import {
  TaskArgumentError,
  TaskManagerClosedError,
  type EventSink,
  type TaskChange,
} from '@robot-mcp-kit/core/host';
import { BUILTIN_TRIGGER_TYPES } from '@robot-mcp-kit/core/rules';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { ClosableSink, RecordingSink, finished, gate, settle } from './task-test.helpers.js';

const ID = /^[a-z0-9]{1,4}-[0-9a-f]{6}$/;

describe('TaskManager ids', () => {
  it.each([
    ['navigation', 'navi'],
    ['perception', 'perc'],
    ['ab', 'ab'],
    ['x', 'x'],
    ['nav', 'nav'],
  ])('uses the first 4 characters of %s', (serverName, prefix) => {
    const manager = new TaskManager({ serverName });
    const { task_id: id } = manager.start('t', async () => ({}));
    expect(id).toMatch(ID);
    expect(id.split('-')[0]).toBe(prefix);
  });

  it('gives every task a distinct id', () => {
    const manager = new TaskManager({ serverName: 'nav', maxFinishedRetained: 0 });
    const ids = new Set<string>();
    for (let i = 0; i < 3000; i += 1) ids.add(manager.start('t', () => new Promise(() => undefined)).task_id);
    expect(ids.size).toBe(3000);
  });
});

describe('TaskManager get, list and retention', () => {
  it('lists in creation order, filtered by state', async () => {
    const manager = new TaskManager({ serverName: 'nav' });
    const hold = gate();
    const a = manager.start('a', async () => ({}));
    const b = manager.start('b', async () => {
      throw new Error('x');
    });
    const c = manager.start('c', async () => {
      await hold.promise;
      return {};
    });
    await settle();
    expect(manager.list().map((t) => t.task_id)).toEqual([a.task_id, b.task_id, c.task_id]);
    expect(manager.list(null)).toHaveLength(3);
    expect(manager.list(['running']).map((t) => t.tool)).toEqual(['c']);
    expect(manager.list(['succeeded', 'failed']).map((t) => t.tool)).toEqual(['a', 'b']);
    expect(manager.list([])).toEqual([]);
    expect(manager.get('nope')).toBeUndefined();
    hold.open();
  });

  it('rejects an unknown state, naming it and the valid ones', () => {
    const manager = new TaskManager({ serverName: 'nav' });
    expect(() => manager.list(['running', 'done' as TaskState])).toThrow(TaskArgumentError);
    expect(() => manager.list(['done' as TaskState])).toThrow(
      'states: unknown task state "done"; expected some of running, succeeded, failed, cancelled',
    );
    expect(() => manager.list('running' as unknown as TaskState[])).toThrow(/^states: expected an array/);
    expect(() => manager.list([3 as unknown as TaskState])).toThrow(/a number \(3\)/);
  });

  it('keeps at most maxFinishedRetained finished tasks, evicting the oldest finished first', async () => {
    const manager = new TaskManager({ serverName: 'nav', maxFinishedRetained: 3 });
    const hold = gate();
    const running = manager.start('long', async () => {
      await hold.promise;
      return {};
    });
    const done = [];
    for (let i = 0; i < 10; i += 1) done.push(manager.start(`t${i}`, async () => ({ i })));
    await settle();
    expect(manager.list().map((t) => t.tool)).toEqual(['long', 't7', 't8', 't9']);
    expect(manager.get(done[0]!.task_id)).toBeUndefined();
    expect(manager.get(running.task_id)?.state).toBe('running');

    hold.open();
    await settle();
    expect(manager.list().map((t) => t.tool)).toEqual(['long', 't8', 't9']);
  });

  it('with maxFinishedRetained 0 keeps only running tasks, yet cancel still reports', async () => {
    const manager = new TaskManager({ serverName: 'nav', maxFinishedRetained: 0 });
    const info = manager.start('t', (ctx) => ctx.sleep(60_000).then(() => ({})));
    await settle();
    expect((await manager.cancel(info.task_id))?.state).toBe('cancelled');
    expect(manager.list()).toEqual([]);
  });

  it('keeps the ring bounded over many tasks', async () => {
    const manager = new TaskManager({ serverName: 'nav', maxFinishedRetained: 50 });
    for (let i = 0; i < 5000; i += 1) manager.start('t', async () => ({}));
    await settle();
    expect(manager.list()).toHaveLength(50);
    expect(manager.runningCount).toBe(0);
  });
});

describe('TaskManager.onChange', () => {
  it('reports started, each event and finished, and stops when unsubscribed', async () => {
    const sink = new RecordingSink();
    const manager = new TaskManager({ serverName: 'nav', poster: sink });
    const changes: TaskChange[] = [];
    const snapshots: string[] = [];
    const stop = manager.onChange((change) => {
      changes.push(change);
      // read synchronously, the lazy snapshot agrees with the change
      snapshots.push(`${change.task.task_id}:${change.task.state}`);
    });
    const info = manager.start(
      't',
      async (ctx) => {
        await ctx.progress({ percent: 60 });
        return { ok: true };
      },
      { triggers: [{ type: 'progress_above', percent: 50 }] },
    );
    await finished(manager, info.task_id);
    expect(snapshots).toEqual(changes.map((c) => `${c.taskId}:${c.state}`));
    expect(changes.map((c) => [c.kind, c.event?.type, c.state])).toEqual([
      ['started', undefined, 'running'],
      ['event', 'progress', 'running'],
      ['event', 'trigger_fired', 'running'],
      ['event', 'task_done', 'succeeded'],
      ['finished', undefined, 'succeeded'],
    ]);
    expect(changes.filter((c) => c.event).map((c) => c.event)).toEqual(sink.events);
    stop();
    manager.start('t', async () => ({}));
    await settle();
    expect(changes).toHaveLength(5);
  });

  it('notifies `started` with the frozen origin inside start(), before the body runs and before any event', async () => {
    const manager = new TaskManager({ serverName: 'nav' });
    const tag = Symbol('native');
    const tags = new Map<symbol, unknown>([[tag, { ttl: 1000 }]]);
    const log: string[] = [];
    let origin: TaskChange['origin'];
    manager.onChange((change) => {
      log.push(change.event ? `event:${change.event.type}` : change.kind);
      if (change.kind === 'started') origin = change.origin;
      else expect(change.origin).toBeUndefined();
    });
    const info = manager.start(
      't',
      async (ctx) => {
        log.push('body');
        await ctx.progress({ percent: 10 });
        return {};
      },
      { origin: { sessionId: 's1', principal: 'alice', tags } },
    );
    log.push('start returned');
    tags.set(Symbol('late'), 1); // the origin is a copy: later changes of the caller's map do not show
    await finished(manager, info.task_id);
    expect(log).toEqual([
      'started',
      'start returned',
      'body',
      'event:progress',
      'event:task_done',
      'finished',
    ]);
    expect(Object.isFrozen(origin)).toBe(true);
    expect(origin).toMatchObject({ sessionId: 's1', principal: 'alice' });
    expect([...(origin?.tags?.keys() ?? [])]).toEqual([tag]);
    expect(origin?.tags?.get(tag)).toEqual({ ttl: 1000 });
  });

  it('refuses a malformed origin before starting anything', () => {
    const manager = new TaskManager({ serverName: 'nav' });
    const body = async () => ({});
    expect(() => manager.start('t', body, { origin: 'me' as never })).toThrow(/^origin: /);
    expect(() => manager.start('t', body, { origin: { sessionId: 7 } as never })).toThrow(
      /^origin\.sessionId: /,
    );
    expect(() => manager.start('t', body, { origin: { tags: {} } as never })).toThrow(/^origin\.tags: /);
    expect(manager.list()).toEqual([]);
  });

  it('keeps its emit and finish plumbing off the public API', () => {
    const manager = new TaskManager({ serverName: 'nav' }) as unknown as Record<string, unknown>;
    expect(manager.emitEvent).toBeUndefined();
    expect(manager.ignoreIfFinished).toBeUndefined();
  });

  it('logs a throwing listener and never breaks the task', async () => {
    const logger = new MemoryLogger();
    const manager = new TaskManager({ serverName: 'nav', logger });
    manager.onChange(() => {
      throw new Error('observer bug');
    });
    const final = await finished(manager, manager.start('t', async () => ({ ok: true })).task_id);
    expect(final.state).toBe('succeeded');
    expect(logger.at('error', 'listener threw')).toHaveLength(3);
    expect(() => manager.onChange('x' as unknown as () => void)).toThrow(/^listener: /);
  });
});

describe('TaskManager.aclose', () => {
  it('cancels running tasks in parallel, refuses new ones, then closes the sink', async () => {
    const sink = new ClosableSink();
    const clock = new ManualClock();
    const logger = new MemoryLogger();
    const manager = new TaskManager({ serverName: 'nav', poster: sink, clock, logger, cancelGraceMs: 1000 });
    const stubborn = manager.start('stubborn', () => new Promise(() => undefined));
    const polite = manager.start('polite', (ctx) => ctx.sleep(60_000).then(() => ({})));
    const done = manager.start('done', async () => ({}));
    await settle();
    expect(manager.runningCount).toBe(2);

    let closed = false;
    const closing = manager.aclose().then(() => {
      closed = true;
    });
    expect(manager.aclose()).toBe(manager.aclose());
    expect(() => manager.start('late', async () => ({}))).toThrow(TaskManagerClosedError);
    expect(() => manager.start('late', async () => ({}))).toThrow(/TaskManager of server "nav" is closed/);
    expect(manager.get(stubborn.task_id)?.state).toBe('cancelled');
    expect(manager.get(polite.task_id)?.state).toBe('cancelled');
    expect(manager.get(done.task_id)?.state).toBe('succeeded');
    await settle();
    expect(closed).toBe(false);
    expect(sink.closed).toBe(0);
    await clock.advance(1000);
    await closing;
    expect(sink.closed).toBe(1);
    expect(logger.at('warn', 'ignored cancellation')).toHaveLength(1);
    expect(manager.runningCount).toBe(0);
    await manager.aclose();
    expect(sink.closed).toBe(1);
  });

  it('leaves the sink open with flush: false, and works with a sink without aclose', async () => {
    const closable = new ClosableSink();
    const a = new TaskManager({ serverName: 'nav', poster: closable });
    await a.aclose({ flush: false });
    expect(closable.closed).toBe(0);
    const b = new TaskManager({ serverName: 'nav', poster: new RecordingSink() });
    await expect(b.aclose()).resolves.toBeUndefined();
  });
});

describe('TaskManager options', () => {
  const sink: EventSink = { post: () => undefined };
  it.each([
    ['serverName', { serverName: '' }],
    ['serverName', { serverName: 42 }],
    ['poster', { serverName: 'nav', poster: {} }],
    ['triggers', { serverName: 'nav', triggers: [] }],
    ['maxFinishedRetained', { serverName: 'nav', maxFinishedRetained: -1 }],
    ['maxFinishedRetained', { serverName: 'nav', maxFinishedRetained: 1.5 }],
    ['cancelGraceMs', { serverName: 'nav', cancelGraceMs: Number.POSITIVE_INFINITY }],
    ['clock', { serverName: 'nav', clock: { now: () => 0 } as unknown as Clock }],
  ])('rejects a bad %s with a ConfigError naming it', (variable, options) => {
    let caught: unknown;
    try {
      new TaskManager({ poster: sink, ...options } as unknown as TaskManagerOptions);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as Error).message.startsWith(`${variable}: `)).toBe(true);
  });

  it('rejects missing options and a logger without methods', () => {
    expect(() => new TaskManager(undefined as unknown as TaskManagerOptions)).toThrow(ConfigError);
    expect(() => new TaskManager({ serverName: 'n', logger: {} as Logger })).toThrow(/^logger: /);
  });

  it('defaults to the built-in registry and a discarding sink', async () => {
    const manager = new TaskManager({ serverName: 'nav' });
    expect(manager.registry).toBeInstanceOf(TriggerRegistry);
    expect(manager.registry.types()).toEqual([...BUILTIN_TRIGGER_TYPES]);
    const final = await finished(
      manager,
      manager.start('t', async (ctx) => {
        await ctx.progress({ percent: 1 });
        return {};
      }).task_id,
    );
    expect(final.state).toBe('succeeded');
  });
});

describe('TaskManager throughput', () => {
  it('runs 10,000 tasks with 10 progress events each, every seq contiguous', async () => {
    let count = 0;
    const lastSeq = new Map<string, number>();
    let gaps = 0;
    const manager = new TaskManager({
      serverName: 'bench',
      poster: {
        post: (event) => {
          count += 1;
          if (event.seq !== (lastSeq.get(event.task_id) ?? 0) + 1) gaps += 1;
          lastSeq.set(event.task_id, event.seq);
        },
      },
    });
    const waits: Promise<unknown>[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      const info = manager.start(
        'bench',
        async (ctx) => {
          for (let p = 1; p <= 10; p += 1) await ctx.progress({ percent: p * 10 });
          return { i };
        },
        { triggers: [{ type: 'progress_above', percent: 50 }] },
      );
      if (i % 1000 === 0) waits.push(finished(manager, info.task_id));
    }
    await Promise.all(waits);
    await settle();
    expect(manager.runningCount).toBe(0);
    expect(count).toBe(10_000 * 12);
    expect(gaps).toBe(0);
    expect(manager.list()).toHaveLength(200);
  });
});
