import { type TaskInfoJson } from '@robot-mcp-kit/core';
import { InMemoryTaskStore, type StoredTask } from '@robot-mcp-kit/core/store';
import { storedTask } from '../../../../test/support/stored-task.fixtures.js';

// The TaskStore contract every adapter keeps is one suite: packages/redis/test/contracts/. Here,
// what only the in-memory store does: its bound on finished tasks and aliases.

/** An anonymous task of replica-1 created at `createdMs`. */
function stored(taskId: string, state: TaskInfoJson['state'], createdMs: number): StoredTask {
  return storedTask('replica-1', taskId, state, { createdMs, lastSeq: 0 });
}

describe('InMemoryTaskStore', () => {
  it('keeps at most maxFinished finished tasks, dropping the oldest, and every running one', async () => {
    const store = new InMemoryTaskStore({ maxFinished: 2 });
    await store.put(stored('run', 'running', 0));
    for (const [i, id] of ['f1', 'f2', 'f3'].entries()) await store.put(stored(id, 'failed', i + 1));
    expect((await store.list('anonymous')).map((e) => e.task.task_id)).toEqual(['run', 'f2', 'f3']);
  });

  it('keeps task aliases until their expiry, bounded by the tasks it keeps', async () => {
    const store = new InMemoryTaskStore({ maxFinished: 1 });
    await store.put(stored('a', 'running', 1000));
    await store.putAlias('handle-a', 'a', 60_000);
    expect(await store.getAlias('handle-a')).toBe('a');
    expect(await store.getAlias('handle-b')).toBeUndefined();
    await store.putAlias('gone', 'a', -1);
    expect(await store.getAlias('gone')).toBeUndefined();
    for (let i = 0; i < 10; i += 1) await store.putAlias(`h${i}`, 'a', 60_000);
    expect(await store.getAlias('h9')).toBe('a');
    expect(await store.getAlias('handle-a')).toBeUndefined();
  });
});
