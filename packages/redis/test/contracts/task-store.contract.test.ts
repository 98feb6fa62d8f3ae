import { randomUUID } from 'node:crypto';
import { InMemoryTaskStore, type StoredTask, type TaskStore } from '@robot-mcp-kit/core/store';
import { type TaskInfoJson } from '@robot-mcp-kit/core';
import { createRedisTaskStore } from '@robot-mcp-kit/redis/server';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { storedTask } from '../../../../test/support/stored-task.fixtures.js';
import { connectAdmin, deleteKeys, SHARED_REDIS_URL, until } from '../redis-test.helpers.js';

// The TaskStore contract (packages/core/src/tasks/task-store.port.ts), one suite run against every
// adapter: what one adapter alone does (the in-memory bound, Redis's expiry, leases and sweeper)
// stays in that adapter's own tests.

/** One adapter under test: opens a fresh store per test, each test's stores sharing one space. */
interface Adapter {
  readonly name: string;
  /** A store on this test's space (Redis: its own key prefix). */
  open(): Promise<TaskStore & { close?(): Promise<void> }>;
  /** Starts a new space (called before each test). */
  fresh(): void;
  /** Releases what the suite used. */
  teardown(): Promise<void>;
}

const run = `rmk-test:${randomUUID()}:`;
let admin: RedisClient | undefined;
let prefix = run;

const ADAPTERS: Adapter[] = [
  {
    name: 'InMemoryTaskStore',
    open: () => Promise.resolve(new InMemoryTaskStore()),
    fresh: () => undefined,
    teardown: () => Promise.resolve(),
  },
  {
    name: 'RedisTaskStore on the real Redis (127.0.0.1:6379)',
    open: () => createRedisTaskStore({ url: SHARED_REDIS_URL, keyPrefix: prefix }),
    fresh: () => {
      prefix = `${run}${randomUUID()}:`;
    },
    teardown: async () => {
      admin ??= await connectAdmin();
      await deleteKeys(admin, run);
      await admin.close();
    },
  },
];

function entry(
  store: TaskStore,
  taskId: string,
  state: TaskInfoJson['state'],
  createdMs: number,
  scope = 'anonymous',
): StoredTask {
  return storedTask(store.replicaId, taskId, state, { createdMs, scope });
}

describe.each(ADAPTERS)('TaskStore contract: $name', (adapter) => {
  const opened: (TaskStore & { close?(): Promise<void> })[] = [];

  async function open(): Promise<TaskStore> {
    const store = await adapter.open();
    opened.push(store);
    return store;
  }

  beforeEach(() => adapter.fresh());

  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((s) => s.close?.()));
  });

  afterAll(() => adapter.teardown());

  it('puts, gets and lists tasks by scope in creation order, hidden from other scopes', async () => {
    const store = await open();
    const base = Date.now();
    const later = entry(store, `b-${randomUUID()}`, 'running', base + 2000);
    const earlier = entry(store, `a-${randomUUID()}`, 'succeeded', base + 1000);
    const other = entry(store, `c-${randomUUID()}`, 'running', base + 3000, 'alice');
    await store.put(later);
    await store.put(earlier);
    await store.put(other);
    expect(await store.get('anonymous', later.task.task_id)).toEqual(later);
    expect(await store.get('alice', earlier.task.task_id)).toBeUndefined();
    expect((await store.list('anonymous')).map((e) => e.task.task_id)).toEqual([
      earlier.task.task_id,
      later.task.task_id,
    ]);
    expect((await store.list('alice')).map((e) => e.task.task_id)).toEqual([other.task.task_id]);
  });

  it('replaces a task on put', async () => {
    const store = await open();
    const running = entry(store, `r-${randomUUID()}`, 'running', Date.now());
    await store.put(running);
    await store.put({ ...running, lastSeq: 3, task: { ...running.task, state: 'cancelled' } });
    expect(await store.get('anonymous', running.task.task_id)).toMatchObject({
      lastSeq: 3,
      task: { state: 'cancelled' },
    });
    expect(await store.list('anonymous')).toHaveLength(1);
  });

  it('keeps a task alias until its expiry', async () => {
    const store = await open();
    const handle = randomUUID();
    await store.putAlias(handle, 'slee-abc123', 60_000);
    expect(await store.getAlias(handle)).toBe('slee-abc123');
    expect(await store.getAlias(randomUUID())).toBeUndefined();
    const brief = randomUUID();
    await store.putAlias(brief, 'slee-def456', 50);
    await until(async () => (await store.getAlias(brief)) === undefined, 'the alias to expire');
  });

  it('hands cancel requests for its tasks to its listeners until they stop observing', async () => {
    const store = await open();
    const stopped: string[] = [];
    const kept: string[] = [];
    const stop = store.onCancelRequest((id) => stopped.push(id));
    store.onCancelRequest((id) => kept.push(id));
    const first = entry(store, `x-${randomUUID()}`, 'running', Date.now());
    await store.put(first);
    await store.requestCancel(first);
    await until(() => kept.length === 1, 'the first cancel request');
    stop();
    const second = entry(store, `y-${randomUUID()}`, 'running', Date.now());
    await store.put(second);
    await store.requestCancel(second);
    await until(() => kept.length === 2, 'the second cancel request');
    expect(kept).toEqual([first.task.task_id, second.task.task_id]);
    expect(stopped).toEqual([first.task.task_id]);
  });
});
