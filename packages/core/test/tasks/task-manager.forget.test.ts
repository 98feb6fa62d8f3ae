import { describe, expect, it } from '@jest/globals';
import { ManualClock, TaskManager } from '@robot-mcp-kit/core';
import { finished, gate, RecordingSink, settle } from './task-test.helpers.js';

function manager(options: { maxFinishedRetained?: number; cancelGraceMs?: number } = {}) {
  const clock = new ManualClock();
  const sink = new RecordingSink();
  return {
    clock,
    sink,
    tasks: new TaskManager({ serverName: 'forgetful', poster: sink, clock, ...options }),
  };
}

describe('TaskManager.forget', () => {
  it('forgets a finished task: get and list no longer report it', async () => {
    const { tasks } = manager();
    const info = tasks.start('t', async () => ({ ok: true }));
    await finished(tasks, info.task_id);
    expect(tasks.forget(info.task_id)).toBe(true);
    expect(tasks.get(info.task_id)).toBeUndefined();
    expect(tasks.list()).toEqual([]);
    expect(tasks.forget(info.task_id)).toBe(false);
  });

  it('never forgets a running task or an unknown id', async () => {
    const { tasks } = manager();
    const step = gate();
    const info = tasks.start('t', async () => {
      await step.promise;
      return {};
    });
    expect(tasks.forget(info.task_id)).toBe(false);
    expect(tasks.forget('nope')).toBe(false);
    expect(tasks.get(info.task_id)?.state).toBe('running');
    step.open();
    await finished(tasks, info.task_id);
  });

  it('keeps a cancelled task whose body is still settling, and forgets it once it settled', async () => {
    const { tasks, clock } = manager({ cancelGraceMs: 1000 });
    const release = gate();
    const info = tasks.start('t', async () => {
      await release.promise; // ignores the signal
      return {};
    });
    await settle();
    const cancelling = tasks.cancel(info.task_id);
    expect(tasks.forget(info.task_id)).toBe(false);
    release.open();
    await cancelling;
    await clock.advance(0);
    expect(tasks.forget(info.task_id)).toBe(true);
  });

  it('frees its retention slot: forgotten tasks do not count against maxFinishedRetained', async () => {
    const { tasks } = manager({ maxFinishedRetained: 2 });
    const run = async () => {
      const info = tasks.start('t', async () => ({}));
      await finished(tasks, info.task_id);
      return info.task_id;
    };
    const a = await run();
    const b = await run();
    expect(tasks.forget(b)).toBe(true);
    const c = await run();
    expect(tasks.list().map((t) => t.task_id)).toEqual([a, c]);
    const d = await run();
    expect(tasks.list().map((t) => t.task_id)).toEqual([c, d]);
  });
});
