import { TaskCancelledError, TaskManager, type TaskInfo } from '@robot-mcp-kit/core';
import { TaskArgumentError } from '@robot-mcp-kit/core/host';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { RecordingSink, finished, settle } from './task-test.helpers.js';

function setup(): { manager: TaskManager; clock: ManualClock } {
  const clock = new ManualClock();
  const manager = new TaskManager({ serverName: 'arm-m8', poster: new RecordingSink(), clock });
  return { manager, clock };
}

const forever = (ctx: { sleep(ms: number): Promise<void> }) => ctx.sleep(3_600_000).then(() => ({}));
const ids = (infos: readonly TaskInfo[]) => infos.map((t) => t.task_id).sort();

describe('TaskControl (manager.control and ctx.tasks)', () => {
  it('lists tasks filtered by tool and state', async () => {
    const { manager } = setup();
    const move = manager.start('move_joint', forever);
    const grip = manager.start('grasp', forever);
    const done = manager.start('grasp', async () => ({ ok: true }));
    await finished(manager, done.task_id);
    const control = manager.control;
    expect(ids(control.list())).toEqual(ids([move, grip, done]));
    expect(ids(control.list({ tool: 'grasp' }))).toEqual(ids([grip, done]));
    expect(ids(control.list({ tool: 'grasp', state: 'running' }))).toEqual([grip.task_id]);
    expect(ids(control.list({ state: ['succeeded'] }))).toEqual([done.task_id]);
    expect(() => control.list({ state: 'moving' as never })).toThrow(TaskArgumentError);
    expect(() => control.list({ tool: 3 as never })).toThrow(/tool: expected a non-empty string/);
  });

  it('cancels all running tasks of a tool and returns exactly what it cancelled', async () => {
    const { manager } = setup();
    const a = manager.start('move_joint', forever);
    const b = manager.start('move_joint', forever);
    const other = manager.start('grasp', forever);
    await settle();
    const cancelled = await manager.control.cancelAll({ tool: 'move_joint' });
    expect(ids(cancelled)).toEqual(ids([a, b]));
    expect(cancelled.every((t) => t.state === 'cancelled' && t.body_running === undefined)).toBe(true);
    expect(manager.get(other.task_id)?.state).toBe('running');
    expect(await manager.control.cancelAll({ tool: 'move_joint' })).toEqual([]);
  });

  it('cancels several by id, honours except, and cancels everything with no options', async () => {
    const { manager } = setup();
    const [a, b, c, d] = ['t', 't', 'u', 'u'].map((tool) => manager.start(tool, forever));
    await settle();
    expect(ids(await manager.control.cancelAll({ taskIds: [a!.task_id, c!.task_id] }))).toEqual(
      ids([a!, c!]),
    );
    expect(ids(await manager.control.cancelAll({ except: d!.task_id }))).toEqual([b!.task_id]);
    expect(ids(await manager.control.cancelAll())).toEqual([d!.task_id]);
    expect(manager.runningCount).toBe(0);
  });

  it('lets a tool cancel one task; unknown ids give undefined, bad ids a clear error', async () => {
    const { manager } = setup();
    const a = manager.start('t', forever);
    await settle();
    expect((await manager.control.cancel(a.task_id))?.state).toBe('cancelled');
    expect(await manager.control.cancel('armm-000000')).toBeUndefined();
    await expect(manager.control.cancel('' as string)).rejects.toThrow(/taskId: expected a task id/);
  });

  it('gives a task body ctx.tasks: it can stop the other tasks, never itself', async () => {
    const { manager } = setup();
    const moving = manager.start('move_joint', forever);
    let cancelledByStop: TaskInfo[] = [];
    const stop = manager.start('home', async (ctx) => {
      expect(
        ctx.tasks
          .list({ state: 'running' })
          .map((t) => t.tool)
          .sort(),
      ).toEqual(['home', 'move_joint']);
      cancelledByStop = await ctx.tasks.cancelAll();
      return { stopped: cancelledByStop.length };
    });
    const final = await finished(manager, stop.task_id);
    expect(final.state).toBe('succeeded');
    expect(final.result).toEqual({ stopped: 1 });
    expect(cancelledByStop.map((t) => t.task_id)).toEqual([moving.task_id]);
    expect(manager.get(moving.task_id)?.state).toBe('cancelled');
  });

  it('cancels a task whose body then sees TaskCancelledError', async () => {
    const { manager } = setup();
    let reason: unknown;
    const info = manager.start('t', async (ctx) => {
      try {
        await ctx.sleep(60_000);
      } catch (error) {
        reason = error;
        throw error;
      }
      return {};
    });
    await settle();
    await manager.control.cancelAll({ tool: 't' });
    expect(reason).toBeInstanceOf(TaskCancelledError);
    expect(manager.get(info.task_id)?.state).toBe('cancelled');
  });
});
