import { TaskCancelledError, TaskManager, systemClock } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { timerQueueFor } from '../../src/clock/timer-queue.js';
import { until } from '../events/test-helpers.js';
import { RecordingSink, finished, settle } from './task-test.helpers.js';

function setup(): { manager: TaskManager; clock: ManualClock } {
  const clock = new ManualClock();
  const manager = new TaskManager({
    serverName: 'navigation',
    poster: new RecordingSink(),
    clock,
    logger: new MemoryLogger(),
  });
  return { manager, clock };
}

/** The sleeps a task's cancellation would wake (internal bookkeeping, read for this test only). */
function pendingHooks(manager: TaskManager, taskId: string): number | undefined {
  const lifecycle = (manager as unknown as { lifecycle: { tasks: Map<string, { cancelHookCount: number }> } })
    .lifecycle;
  return lifecycle.tasks.get(taskId)?.cancelHookCount;
}

describe('TaskContext.sleep', () => {
  it('resolves sleeps in turn and side by side on time, and leaves no timer or cancel hook behind', async () => {
    const { manager, clock } = setup();
    const log: string[] = [];
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.sleep(100);
      log.push(`first ${clock.now()}`);
      await Promise.all([
        ctx.sleep(300).then(() => log.push(`long ${clock.now()}`)),
        ctx.sleep(100).then(() => log.push(`short ${clock.now()}`)),
      ]);
      await ctx.sleep(50);
      log.push(`last ${clock.now()}`);
      return { done: true };
    });
    const t0 = clock.now();
    await settle();
    expect(pendingHooks(manager, info.task_id)).toBe(1);
    await clock.advance(100);
    await settle();
    expect(pendingHooks(manager, info.task_id)).toBe(2);
    await clock.advance(100);
    await settle();
    expect(pendingHooks(manager, info.task_id)).toBe(1);
    await clock.advance(200);
    await settle();
    await clock.advance(50);
    expect((await finished(manager, info.task_id)).state).toBe('succeeded');
    expect(log).toEqual([`first ${t0 + 100}`, `short ${t0 + 200}`, `long ${t0 + 400}`, `last ${t0 + 450}`]);
    expect(clock.pending).toBe(0);
    expect(pendingHooks(manager, info.task_id)).toBe(0);
  });

  it('rejects a sleep started after another ended with the cancellation reason, and clears its timer', async () => {
    const { manager, clock } = setup();
    let outcome: unknown;
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.sleep(10);
      outcome = await ctx.sleep(60_000).catch((e: unknown) => e);
      return {};
    });
    await settle();
    await clock.advance(10);
    await settle();
    expect(clock.pending).toBe(1);
    await manager.cancel(info.task_id);
    await settle();
    expect(outcome).toBeInstanceOf(TaskCancelledError);
    expect(clock.pending).toBe(0);
    expect(pendingHooks(manager, info.task_id)).toBe(0);
  });

  it('on the system clock waits in the shared timer queue: never ends early, a cancel rejects and dequeues', async () => {
    const manager = new TaskManager({
      serverName: 'navigation',
      poster: new RecordingSink(),
      logger: new MemoryLogger(),
    });
    const queue = timerQueueFor(systemClock, 40)!;
    const before = queue.size;
    const elapsed: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const info = manager.start('navigate_to', async (ctx) => {
        for (const ms of [40, 15]) {
          const t0 = performance.now();
          await ctx.sleep(ms);
          elapsed.push(performance.now() - t0 - ms);
        }
        return {};
      });
      ids.push(info.task_id);
    }
    let outcome: unknown;
    const cancelled = manager.start('navigate_to', async (ctx) => {
      outcome = await ctx.sleep(60_000).catch((e: unknown) => e);
      return {};
    });
    await until(() => queue.size === before + 51, 'every sleep queued');
    await manager.cancel(cancelled.task_id);
    await until(() => outcome !== undefined, 'the cancelled sleep settled');
    expect(outcome).toBeInstanceOf(TaskCancelledError);
    expect(pendingHooks(manager, cancelled.task_id)).toBe(0);
    for (const id of ids) expect((await finished(manager, id)).state).toBe('succeeded');
    expect(elapsed).toHaveLength(100);
    expect(Math.min(...elapsed)).toBeGreaterThanOrEqual(0);
    expect(queue.size).toBe(before);
  });
});
