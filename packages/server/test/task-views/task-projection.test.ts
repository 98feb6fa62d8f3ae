import { describe, expect, it } from '@jest/globals';
import { type TaskBody, TaskManager } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import {
  type ProjectedChange,
  type RemoteChangeSource,
  TaskProjection,
} from '../../src/task-views/task-projection.js';

/** Runs until cancelled. */
const hold: TaskBody = (ctx) =>
  new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));

/** A real TaskManager whose change listeners are counted (the channel the projection must own). */
function counted(options: { clock?: ManualClock; logger?: MemoryLogger } = {}) {
  const taskManager = new TaskManager({ serverName: 'proj', ...options });
  const subscribe = taskManager.onChange.bind(taskManager);
  const state = { listeners: 0 };
  taskManager.onChange = (listener) => {
    state.listeners += 1;
    const stop = subscribe(listener);
    return () => {
      state.listeners -= 1;
      stop();
    };
  };
  return { taskManager, state };
}

/** A store bridge's remote change channel, driven by the test. */
function remoteSource(): RemoteChangeSource & { emit(taskId: string): void; readonly size: number } {
  const listeners = new Set<(taskId: string) => void>();
  return {
    onRemoteChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit: (taskId) => listeners.forEach((listener) => listener(taskId)),
    get size() {
      return listeners.size;
    },
  };
}

describe('TaskProjection', () => {
  it('is one subscription to its TaskManager however many surfaces listen, and none once they all stop', async () => {
    const { taskManager, state } = counted();
    const projection = new TaskProjection(taskManager);
    const seen: string[][] = [[], [], []];
    const stops = seen.map((kinds) => projection.subscribe((change) => kinds.push(change.kind)));
    const held = projection.hold();
    expect(state.listeners).toBe(1);
    const info = taskManager.start('t', async () => ({}));
    await taskManager.whenStopped(info.task_id);
    expect(seen).toEqual([0, 1, 2].map(() => ['started', 'event', 'finished']));
    for (const stop of stops) stop();
    expect(state.listeners).toBe(1); // still held
    held();
    held(); // releasing twice releases once
    expect(state.listeners).toBe(0);
    await taskManager.aclose();
  });

  it("records each task's owner before the surfaces hear of it, and lists by session, principal and status", async () => {
    const clock = new ManualClock();
    const { taskManager } = counted({ clock });
    const projection = new TaskProjection(taskManager);
    const ownersAtStart: unknown[] = [];
    const stop = projection.subscribe((change) => {
      if (change.kind === 'started') ownersAtStart.push(projection.get(change.taskId)?.sessionId ?? 'none');
    });
    const alice = taskManager.start('t', hold, { origin: { sessionId: 's1', principal: 'alice' } });
    const anonymous = taskManager.start('t', async () => ({}), { origin: { sessionId: 's1' } });
    const bare = taskManager.start('t', hold);
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const bob = taskManager.start('t', () => gate.then(() => ({})), {
      origin: { sessionId: 's2', principal: 'bob' },
    });
    expect(ownersAtStart).toEqual(['s1', 's1', 'none', 's2']); // a task without origin is not held
    await taskManager.whenStopped(anonymous.task_id);
    await clock.advance(5);
    open();
    await taskManager.whenStopped(bob.task_id);

    expect(projection.get(bare.task_id)).toBeUndefined();
    // an anonymous owner is forgotten at the end (only a principal is read afterwards)
    expect(projection.get(anonymous.task_id)).toBeUndefined();
    expect(projection.get(bob.task_id)).toMatchObject({ sessionId: 's2', principal: 'bob', finished: true });
    expect(projection.get(bob.task_id)?.changedAt).toBe(clock.now());
    expect(projection.get(alice.task_id)?.changedAt).toBe(clock.now() - 5);
    expect(projection.list({ sessionId: 's1' }).map((t) => t.taskId)).toEqual([alice.task_id]);
    expect(projection.list({ status: 'finished' }).map((t) => t.taskId)).toEqual([bob.task_id]);
    expect(projection.list({ principal: 'alice', status: 'running' }).map((t) => t.taskId)).toEqual([
      alice.task_id,
    ]);
    expect(projection.info(alice.task_id)?.state).toBe('running');
    stop();
    await taskManager.aclose();
  });

  it("follows a store's remote changes with one subscription per store, for the listeners that asked", async () => {
    const { taskManager } = counted();
    const projection = new TaskProjection(taskManager);
    const store = remoteSource();
    const heard: ProjectedChange[][] = [[], [], []];
    const first = projection.subscribe((change) => heard[0]!.push(change), store);
    const second = projection.subscribe((change) => heard[1]!.push(change), store);
    const localOnly = projection.subscribe((change) => heard[2]!.push(change));
    expect(store.size).toBe(1);
    store.emit('other-000001');
    expect(heard).toEqual([
      [{ kind: 'remote', taskId: 'other-000001' }],
      [{ kind: 'remote', taskId: 'other-000001' }],
      [],
    ]);
    first();
    expect(store.size).toBe(1);
    second();
    expect(store.size).toBe(0);
    localOnly();
    await taskManager.aclose();
  });

  it('logs a throwing surface and still tells the others', async () => {
    const logger = new MemoryLogger();
    const { taskManager } = counted({ logger });
    const projection = new TaskProjection(taskManager);
    const kinds: string[] = [];
    const broken = projection.subscribe(() => {
      throw new Error('surface broke');
    });
    const working = projection.subscribe((change) => kinds.push(change.kind));
    const info = taskManager.start('t', async () => ({}));
    await taskManager.whenStopped(info.task_id);
    expect(kinds).toEqual(['started', 'event', 'finished']);
    const logged = logger.entries.filter((entry) => entry.message.startsWith('a task change listener threw'));
    expect(logged.map((entry) => entry.meta?.error)).toEqual([
      'surface broke',
      'surface broke',
      'surface broke',
    ]);
    broken();
    working();
    await taskManager.aclose();
  });
});
