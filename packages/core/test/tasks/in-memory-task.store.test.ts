import { type TaskInfoJson } from '@robot-mcp-kit/core';
import { InMemoryTaskStore, type StoredTask } from '@robot-mcp-kit/core/store';

function stored(
  taskId: string,
  state: TaskInfoJson['state'],
  createdMs: number,
  scope = 'anonymous',
): StoredTask {
  const at = new Date(createdMs).toISOString();
  return {
    scope,
    owner: 'replica-1',
    lastSeq: 0,
    task: {
      task_id: taskId,
      server: 'sleeper',
      tool: 'sleep_task',
      state,
      created_at: at,
      updated_at: at,
      triggers: [],
      est_duration_s: null,
      progress: null,
      result: null,
      failure: null,
    },
  };
}

describe('InMemoryTaskStore', () => {
  it('lists the tasks of one scope in creation order and hides them from other scopes', async () => {
    const store = new InMemoryTaskStore();
    await store.put(stored('b', 'running', 2000));
    await store.put(stored('a', 'succeeded', 1000));
    await store.put(stored('c', 'running', 3000, 'alice'));
    expect((await store.list('anonymous')).map((e) => e.task.task_id)).toEqual(['a', 'b']);
    expect(await store.get('alice', 'a')).toBeUndefined();
    expect((await store.get('alice', 'c'))?.task.state).toBe('running');
  });

  it('keeps at most maxFinished finished tasks, dropping the oldest, and every running one', async () => {
    const store = new InMemoryTaskStore({ maxFinished: 2 });
    await store.put(stored('run', 'running', 0));
    for (const [i, id] of ['f1', 'f2', 'f3'].entries()) await store.put(stored(id, 'failed', i + 1));
    expect((await store.list('anonymous')).map((e) => e.task.task_id)).toEqual(['run', 'f2', 'f3']);
  });

  it('hands cancel requests to its listeners until they stop observing', async () => {
    const store = new InMemoryTaskStore();
    const asked: string[] = [];
    const stop = store.onCancelRequest((id) => asked.push(id));
    await store.requestCancel(stored('x', 'running', 0));
    stop();
    await store.requestCancel(stored('y', 'running', 0));
    expect(asked).toEqual(['x']);
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
