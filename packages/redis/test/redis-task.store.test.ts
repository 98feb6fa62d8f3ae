import { randomUUID } from 'node:crypto';
import { ConfigError, type TaskInfoJson } from '@robot-mcp-kit/core';
import { REPLICA_LOST, type StoredTask } from '@robot-mcp-kit/core/store';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { createRedisTaskStore, type RedisTaskStore } from '@robot-mcp-kit/redis/server';
import {
  connectAdmin,
  deleteKeys,
  freePort,
  privateRedis,
  SHARED_REDIS_URL,
  until,
} from './redis-test.helpers.js';
import { storedTask } from '../../../test/support/stored-task.fixtures.js';

// What every TaskStore does is one suite (contracts/task-store.contract.test.ts); here, what only
// the Redis store does: replicas sharing it, expiry, leases, cancel routing, the sweeper, outages.

function entry(
  store: RedisTaskStore,
  taskId: string,
  state: TaskInfoJson['state'],
  scope = 'anonymous',
): StoredTask {
  return storedTask(store.replicaId, taskId, state, { scope });
}

describe('RedisTaskStore on the real Redis (127.0.0.1:6379)', () => {
  const run = `rmk-test:${randomUUID()}:`;
  /** A key prefix of each test's own, so no test sees another's replicas. */
  let prefix = run;
  let admin: RedisClient;
  const stores: RedisTaskStore[] = [];

  async function open(options: { leaseMs?: number; finishedTtlS?: number; sweepEveryMs?: number } = {}) {
    const store = await createRedisTaskStore({ url: SHARED_REDIS_URL, keyPrefix: prefix, ...options });
    stores.push(store);
    return store;
  }

  beforeAll(async () => {
    admin = await connectAdmin();
  });

  beforeEach(() => {
    prefix = `${run}${randomUUID()}:`;
  });

  afterEach(async () => {
    await Promise.allSettled(stores.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    await deleteKeys(admin, run);
    await admin.close();
  });

  it('keeps a task alias (a SEP-2663 handle) shared by the replicas, with its expiry', async () => {
    const [one, two] = [await open(), await open()];
    const handle = randomUUID();
    await one.putAlias(handle, 'slee-abc123', 60_000);
    expect(await two.getAlias(handle)).toBe('slee-abc123');
    const ttl = await admin.pTTL(one.keys.alias(handle));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('expires a finished task by key expiry and drops it from the index', async () => {
    const store = await open({ finishedTtlS: 0.3 });
    const done = entry(store, `d-${randomUUID()}`, 'succeeded', `ttl-${randomUUID()}`);
    await store.put(done);
    expect(await admin.pTTL(store.keys.task(done.task.task_id))).toBeGreaterThan(0);
    await until(
      async () => (await store.get(done.scope, done.task.task_id)) === undefined,
      'the task to expire',
    );
    expect(await store.list(done.scope)).toEqual([]);
    expect(await admin.zCard(store.keys.scope(done.scope))).toBe(0);
  });

  it('keeps a running task without expiry and never turns a finished task back to running', async () => {
    const store = await open();
    const running = entry(store, `r-${randomUUID()}`, 'running');
    await store.put(running);
    expect(await admin.pTTL(store.keys.task(running.task.task_id))).toBe(-1);
    expect(await admin.sIsMember(store.keys.owned(store.replicaId), running.task.task_id)).toBe(1);
    await store.put({ ...running, task: { ...running.task, state: 'cancelled' } });
    await store.put(running);
    expect((await store.get('anonymous', running.task.task_id))?.task.state).toBe('cancelled');
    expect(await admin.sIsMember(store.keys.owned(store.replicaId), running.task.task_id)).toBe(0);
  });

  it('releases only the unused id reservations it holds, keeping those of tasks and of other replicas', async () => {
    const [mine, other] = [await open(), await open()];
    const [used, unused, alsoUnused, theirs] = ['a', 'b', 'c', 'd'].map((c) => `${c}-${randomUUID()}`) as [
      string,
      string,
      string,
      string,
    ];
    for (const id of [used, unused, alsoUnused]) expect(await mine.reserveId(id)).toBe(true);
    expect(await other.reserveId(theirs)).toBe(true);
    await mine.put(entry(mine, used, 'running'));
    expect(await mine.releaseIds([used, unused, alsoUnused, theirs])).toBe(2);
    expect(await admin.exists(mine.keys.taskId(unused))).toBe(0);
    expect(await admin.exists(mine.keys.taskId(alsoUnused))).toBe(0);
    expect(await admin.get(mine.keys.taskId(used))).toBe(mine.replicaId);
    expect(await admin.get(mine.keys.taskId(theirs))).toBe(other.replicaId);
    // released ids are free again for any replica
    expect(await other.reserveId(unused)).toBe(true);
    expect(await mine.releaseIds([])).toBe(0);
  });

  it('holds a renewed lease and drops it on close', async () => {
    const store = await open({ leaseMs: 600 });
    const lease = store.keys.lease(store.replicaId);
    expect(await admin.exists(lease)).toBe(1);
    // a renewal sets the expiry back up: the remaining time rises above the lowest seen so far
    let lowest = Number.POSITIVE_INFINITY;
    await until(async () => {
      const left = await admin.pTTL(lease);
      lowest = Math.min(lowest, left);
      return left > lowest + 50;
    }, 'the lease to be renewed');
    expect(await admin.exists(lease)).toBe(1);
    await store.close();
    expect(await admin.exists(lease)).toBe(0);
  });

  it('sends a cancel request to the owner replica only', async () => {
    const owner = await open();
    const other = await open();
    const toOwner: string[] = [];
    const toOther: string[] = [];
    owner.onCancelRequest((id) => toOwner.push(id));
    other.onCancelRequest((id) => toOther.push(id));
    const task = entry(owner, `k-${randomUUID()}`, 'running');
    await owner.put(task);
    await other.requestCancel(task);
    await until(() => toOwner.length === 1, 'the cancel request to reach the owner');
    expect(toOwner).toEqual([task.task.task_id]);
    expect(toOther).toEqual([]);
  });

  it("ignores and counts a cancel request published without a valid MAC; a replica's own still cancels", async () => {
    const secret = 'cancel-mac-secret-0123456789abcdef';
    const owner = await createRedisTaskStore({ url: SHARED_REDIS_URL, keyPrefix: prefix, secret });
    const other = await createRedisTaskStore({ url: SHARED_REDIS_URL, keyPrefix: prefix, secret });
    stores.push(owner, other);
    const toOwner: string[] = [];
    owner.onCancelRequest((id) => toOwner.push(id));
    const task = entry(owner, `m-${randomUUID()}`, 'running');
    await owner.put(task);
    const channel = owner.keys.cancelChannel(owner.replicaId);
    // someone with Redis write access but not the secret: a bare id, then a made-up MAC
    await admin.publish(channel, task.task.task_id);
    await admin.publish(channel, `${task.task.task_id} ${'ab'.repeat(32)}`);
    await other.requestCancel(task);
    await until(() => toOwner.length === 1, 'the authentic cancel request to reach the owner');
    expect(toOwner).toEqual([task.task.task_id]);
    expect(owner.stats()).toMatchObject({ cancelRequestsReceived: 1, cancelRequestsRefused: 2 });
  });

  it('fails the running tasks of a lost replica exactly once across survivors', async () => {
    const dead = await open({ leaseMs: 1000 });
    const tasks = [
      entry(dead, `l1-${randomUUID()}`, 'running'),
      entry(dead, `l2-${randomUUID()}`, 'running'),
    ];
    for (const t of tasks) await dead.put(t);
    // a crash: the lease stops being renewed, the replica stays listed with its running tasks
    stores.splice(stores.indexOf(dead), 1);
    await (dead as unknown as { lease: { stop(): Promise<void> } }).lease.stop();
    await admin.sAdd(dead.keys.replicas(), dead.replicaId);
    await admin.sAdd(
      dead.keys.owned(dead.replicaId),
      tasks.map((t) => t.task.task_id),
    );
    // Each survivor listens from the moment it is open: its own timer may sweep (and fail the lost
    // tasks) while the next survivor is still connecting, which takes over a lease on a busy machine.
    const failed: { by: string; entry: StoredTask }[] = [];
    const survivors: RedisTaskStore[] = [];
    for (let i = 0; i < 3; i += 1) {
      const s = await open({ leaseMs: 1000 });
      s.onLostTask((e) => void failed.push({ by: s.replicaId, entry: e }));
      survivors.push(s);
    }
    await until(async () => {
      await Promise.all(survivors.map((s) => s.sweep()));
      return failed.length >= 2;
    }, 'both lost tasks to be failed');
    await Promise.all(survivors.map((s) => s.sweep()));
    expect(failed.map((f) => f.entry.task.task_id).sort()).toEqual(tasks.map((t) => t.task.task_id).sort());
    for (const f of failed) {
      expect(f.entry.task.state).toBe('failed');
      expect(f.entry.task.failure?.error_code).toBe(REPLICA_LOST);
      expect(f.entry.lastSeq).toBe(3);
      expect((await survivors[0]!.get('anonymous', f.entry.task.task_id))?.task.state).toBe('failed');
    }
    expect(await admin.sCard(dead.keys.owned(dead.replicaId))).toBe(0);
    await dead.close();
  });

  it('counts and rethrows writes during an outage, and writes again once Redis is back', async () => {
    const redis = await privateRedis();
    try {
      const store = await createRedisTaskStore({ url: redis.url, keyPrefix: prefix, commandTimeoutMs: 500 });
      stores.push(store);
      const task = entry(store, `o-${randomUUID()}`, 'running');
      await redis.stop();
      await expect(store.put(task)).rejects.toThrow();
      expect(store.stats().errors).toBeGreaterThan(0);
      await redis.start();
      await until(async () => {
        try {
          await store.put(task);
          return true;
        } catch {
          return false;
        }
      }, 'a write after Redis came back');
      expect((await store.get('anonymous', task.task.task_id))?.task.state).toBe('running');
    } finally {
      await Promise.allSettled(stores.splice(0).map((s) => s.close()));
      await redis.stop();
    }
  });

  it('fails fast naming the URL when Redis is unreachable', async () => {
    const port = await freePort();
    await expect(createRedisTaskStore({ url: `redis://127.0.0.1:${port}/0` })).rejects.toThrow(ConfigError);
    await expect(createRedisTaskStore({ url: `redis://127.0.0.1:${port}/0` })).rejects.toThrow(
      `cannot reach Redis at redis://127.0.0.1:${port}/0`,
    );
  });
});
