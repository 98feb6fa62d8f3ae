import { TaskCancelledError, TaskManager, type TaskContext } from '@robot-mcp-kit/core';
import { type TaskChange } from '@robot-mcp-kit/core/host';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { RecordingSink, finished, gate, settle } from './task-test.helpers.js';

function setup(cancelGraceMs = 5000): {
  manager: TaskManager;
  sink: RecordingSink;
  clock: ManualClock;
  logger: MemoryLogger;
} {
  const sink = new RecordingSink();
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const manager = new TaskManager({ serverName: 'navigation', poster: sink, clock, logger, cancelGraceMs });
  return { manager, sink, clock, logger };
}

describe('TaskManager.cancel', () => {
  it('aborts the signal, marks the task cancelled and emits no terminal event', async () => {
    const { manager, sink } = setup();
    let seen: TaskContext | undefined;
    const info = manager.start('navigate_to', async (ctx) => {
      seen = ctx;
      await ctx.progress({ percent: 10 });
      await ctx.sleep(60_000);
      return { arrived: true };
    });
    await settle();
    expect(seen?.signal.aborted).toBe(false);

    const cancelled = await manager.cancel(info.task_id);
    expect(cancelled?.state).toBe('cancelled');
    expect(cancelled?.failure).toBeNull();
    expect(seen?.signal.aborted).toBe(true);
    expect(seen?.signal.reason).toBeInstanceOf(TaskCancelledError);
    expect((seen?.signal.reason as TaskCancelledError).code).toBe('TASK_CANCELLED');
    expect(() => seen?.throwIfCancelled()).toThrow(TaskCancelledError);
    await settle();
    expect(sink.typesOf(info.task_id)).toEqual(['progress']);
    expect(manager.get(info.task_id)?.state).toBe('cancelled');
    expect(manager.runningCount).toBe(0);
  });

  it('wakes every pending ctx.sleep on cancel and rejects later ones at once', async () => {
    const { manager, clock } = setup();
    const outcomes: unknown[] = [];
    let seen: TaskContext | undefined;
    const info = manager.start('navigate_to', async (ctx) => {
      seen = ctx;
      const sleeps = [ctx.sleep(60_000), ctx.sleep(1000)].map((p) => p.catch((e: unknown) => e));
      outcomes.push(...(await Promise.all(sleeps)));
      outcomes.push(await ctx.sleep(1).catch((e: unknown) => e));
      return {};
    });
    await settle();
    await manager.cancel(info.task_id);
    await settle();
    expect(outcomes).toHaveLength(3);
    for (const outcome of outcomes) expect(outcome).toBe(seen?.signal.reason);
    expect(outcomes[0]).toBeInstanceOf(TaskCancelledError);
    expect(clock.pending).toBe(0);
  });

  it('ignores events from the body after cancellation, logging at debug', async () => {
    const { manager, sink, logger } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      try {
        await ctx.sleep(60_000);
      } finally {
        await ctx.progress({ percent: 99 });
        await ctx.emit({ late: true });
        await ctx.fireTrigger({ type: 'eta_below', seconds: 1 });
      }
      return {};
    });
    await settle();
    await manager.cancel(info.task_id);
    await settle();
    expect(sink.of(info.task_id)).toEqual([]);
    expect(manager.get(info.task_id)?.progress).toBeNull();
    expect(logger.at('debug', 'is cancelled; ignoring').length).toBeGreaterThanOrEqual(3);
  });

  it('keeps a task cancelled when its body finishes successfully after cancel', async () => {
    const { manager, sink, logger } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.sleep(60_000).catch(() => undefined);
      return { arrived: true };
    });
    await settle();
    const cancelled = await manager.cancel(info.task_id);
    expect(cancelled?.state).toBe('cancelled');
    expect(cancelled?.result).toBeNull();
    expect(sink.of(info.task_id)).toEqual([]);
    expect(logger.at('debug', 'return a result')).toHaveLength(1);
  });

  it('is idempotent: a second cancel returns the same cancelled state', async () => {
    const { manager } = setup();
    const info = manager.start('navigate_to', (ctx) => ctx.sleep(60_000).then(() => ({})));
    await settle();
    const first = await manager.cancel(info.task_id);
    const second = await manager.cancel(info.task_id);
    expect(second?.toJSON()).toEqual(first?.toJSON());
  });

  it('returns the terminal state of a finished task unchanged', async () => {
    const { manager, sink } = setup();
    const info = manager.start('navigate_to', async () => ({ arrived: true }));
    const done = await finished(manager, info.task_id);
    const after = await manager.cancel(info.task_id);
    expect(after?.state).toBe('succeeded');
    expect(after?.toJSON()).toEqual(done.toJSON());
    expect(sink.typesOf(info.task_id)).toEqual(['task_done']);
  });

  it('returns undefined for an unknown task', async () => {
    const { manager } = setup();
    await expect(manager.cancel('navi-000000')).resolves.toBeUndefined();
  });

  it('answers promptly for a body that ignores cancellation and reports it running until it exits', async () => {
    const { manager, clock, logger, sink } = setup(5000);
    const release = gate();
    const info = manager.start('navigate_to', async (ctx) => {
      await release.promise; // ignores ctx.signal
      await ctx.progress({ percent: 100 });
      return { done: true };
    });
    await settle();
    let resolved = false;
    const cancelling = manager.cancel(info.task_id).then((result) => {
      resolved = true;
      return result;
    });
    const concurrent = manager.cancel(info.task_id);
    expect(manager.get(info.task_id)?.state).toBe('cancelled');
    // The reply comes after the short reply wait (250 ms), not after the 5 s grace.
    await clock.advance(249);
    expect(resolved).toBe(false);
    await clock.advance(1);
    expect(resolved).toBe(true);
    const reply = await cancelling;
    expect(reply?.state).toBe('cancelled');
    expect(reply?.toJSON()).toMatchObject({ state: 'cancelled', body_running: true });
    expect(reply?.toJSON()).not.toHaveProperty('overran_grace');
    expect((await concurrent)?.body_running).toBe(true);
    expect(logger.at('warn')).toHaveLength(0);

    await clock.advance(4750);
    const warnings = logger.at('warn', 'ignored cancellation');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.meta.task_id).toBe(info.task_id);
    expect(warnings[0]?.message).toContain('5000 ms');
    expect(manager.get(info.task_id)?.toJSON()).toMatchObject({
      state: 'cancelled',
      body_running: true,
      overran_grace: true,
    });
    expect(manager.list(['cancelled'])[0]?.overran_grace).toBe(true);
    expect((await manager.cancel(info.task_id))?.overran_grace).toBe(true);

    release.open();
    await settle();
    expect(sink.of(info.task_id)).toEqual([]);
    const after = manager.get(info.task_id)?.toJSON();
    expect(after?.state).toBe('cancelled');
    expect(after).not.toHaveProperty('body_running');
    expect(after).not.toHaveProperty('overran_grace');
    expect(logger.at('info', 'its body stopped after cancellation')).toHaveLength(1);
  });

  it('reports a cooperative body as stopped in the cancel reply (no body_running)', async () => {
    const { manager } = setup();
    const info = manager.start('navigate_to', (ctx) => ctx.sleep(60_000).then(() => ({})));
    await settle();
    const reply = await manager.cancel(info.task_id);
    expect(reply?.toJSON()).not.toHaveProperty('body_running');
    expect(Object.keys(reply?.toJSON() ?? {})).toEqual([
      'task_id',
      'server',
      'tool',
      'state',
      'created_at',
      'updated_at',
      'triggers',
      'est_duration_s',
      'progress',
      'result',
      'failure',
    ]);
  });

  it('makes aclose wait the whole grace for a body that ignores cancellation', async () => {
    const { manager, clock } = setup(5000);
    const release = gate();
    manager.start('navigate_to', async () => {
      await release.promise;
      return {};
    });
    await settle();
    let closed = false;
    const closing = manager.aclose().then(() => {
      closed = true;
    });
    await clock.advance(4999);
    expect(closed).toBe(false);
    await clock.advance(1);
    await closing;
    expect(closed).toBe(true);
    release.open();
  });

  it('shares one wait between concurrent cancels of a cooperative body', async () => {
    const { manager, clock } = setup();
    const info = manager.start('navigate_to', (ctx) => ctx.sleep(60_000).then(() => ({})));
    await settle();
    const [a, b] = await Promise.all([manager.cancel(info.task_id), manager.cancel(info.task_id)]);
    expect(a?.state).toBe('cancelled');
    expect(b?.state).toBe('cancelled');
    expect(clock.pending).toBe(0);
  });

  it('never runs a body cancelled before it started', async () => {
    const { manager } = setup();
    let ran = false;
    const info = manager.start('navigate_to', async () => {
      ran = true;
      return {};
    });
    const cancelled = await manager.cancel(info.task_id);
    await settle();
    expect(cancelled?.state).toBe('cancelled');
    expect(ran).toBe(false);
  });

  it('ends cancelled, without an event, when the body throws TaskCancelledError itself', async () => {
    const { manager, sink } = setup();
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress({ percent: 1 });
      throw new TaskCancelledError();
    });
    const final = await finished(manager, info.task_id);
    expect(final.state).toBe('cancelled');
    expect(sink.typesOf(info.task_id)).toEqual(['progress']);
    expect(await manager.cancel(info.task_id)).toEqual(final);
  });

  it('makes ctx.sleep wait on the manager clock', async () => {
    const { manager, clock } = setup();
    const info = manager.start('t', async (ctx) => {
      await ctx.sleep(1000);
      return {};
    });
    await clock.advance(999);
    expect(manager.get(info.task_id)?.state).toBe('running');
    await clock.advance(1);
    expect(manager.get(info.task_id)?.state).toBe('succeeded');
  });

  it('notifies observers that a cancelled task finished', async () => {
    const { manager } = setup();
    const changes: TaskChange[] = [];
    manager.onChange((change) => changes.push(change));
    const info = manager.start('t', (ctx) => ctx.sleep(60_000).then(() => ({})));
    await settle();
    await manager.cancel(info.task_id);
    expect(changes.map((c) => [c.kind, c.state])).toEqual([
      ['started', 'running'],
      ['finished', 'cancelled'],
    ]);
  });

  it('lets an observer cancel a task from inside an event notification', async () => {
    const { manager, sink } = setup();
    manager.onChange((change) => {
      if (change.event?.type === 'progress') void manager.cancel(change.task.task_id);
    });
    const info = manager.start(
      't',
      async (ctx) => {
        await ctx.progress({ percent: 60 });
        await ctx.progress({ percent: 70 });
        return {};
      },
      { triggers: [{ type: 'progress_above', percent: 50 }] },
    );
    await settle();
    expect(sink.typesOf(info.task_id)).toEqual(['progress']);
    expect(manager.get(info.task_id)?.state).toBe('cancelled');
  });
});
