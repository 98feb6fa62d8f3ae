import { type OutboxRecord, type StoredTask } from '@robot-mcp-kit/core/store';
import { createRedisEventOutbox, createRedisTaskStore } from '@robot-mcp-kit/redis/server';
import { createClient } from 'redis';
import { commandCalls, makeEvent, privateRedis } from './redis-test.helpers.js';

const OPS = 20;

function running(taskId: string, owner: string): StoredTask {
  const at = new Date().toISOString();
  return {
    scope: 'anonymous',
    owner,
    lastSeq: 1,
    task: {
      task_id: taskId,
      server: 'sleeper',
      tool: 'sleep_task',
      state: 'running',
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

describe('the kit scripts (a private redis-server)', () => {
  it('are sent as EVALSHA: a script text goes at most once, not with every task write, append and ack', async () => {
    const redis = await privateRedis();
    try {
      const store = await createRedisTaskStore({ url: redis.url, replicaId: 'r1' });
      const outbox = await createRedisEventOutbox({ url: redis.url, serverName: 'sleeper', replicaId: 'r1' });
      try {
        for (let i = 0; i < OPS; i += 1) await store.put(running(`slee-00000${i}`, 'r1'));
        for (let i = 1; i <= OPS; i += 1) {
          const event = makeEvent(i);
          const record: OutboxRecord = { event, body: JSON.stringify(event), postedAtMs: Date.now() };
          await outbox.append(record);
          await outbox.ack(event.event_id);
        }
      } finally {
        await outbox.close();
        await store.close();
      }
      const calls = await commandCalls(redis.url);
      expect(calls.get('evalsha') ?? 0).toBeGreaterThanOrEqual(3 * OPS);
      // at most one EVAL per script (node-redis's fallback when Redis answers NOSCRIPT, which caches it)
      expect(calls.get('eval') ?? 0).toBeLessThanOrEqual(6);
    } finally {
      await redis.stop();
    }
  }, 120_000);

  it('write a task and append its event in one EVALSHA; once fenced, neither', async () => {
    const redis = await privateRedis();
    try {
      const store = await createRedisTaskStore({ url: redis.url, replicaId: 'r1' });
      const fence = () => store.fencingToken();
      const outbox = await createRedisEventOutbox({
        url: redis.url,
        serverName: 'sleeper',
        replicaId: 'r1',
        fence,
      });
      const admin = createClient({ url: redis.url });
      await admin.connect();
      try {
        const event = makeEvent(1, 'slee-000001');
        const record: OutboxRecord = { event, body: JSON.stringify(event), postedAtMs: Date.now() };
        await outbox.append(record, store.carriedWrite(running('slee-000001', 'r1'))); // loads the script
        const before = await commandCalls(redis.url);
        const entry = { ...running('slee-000001', 'r1'), lastSeq: 2 };
        const write = store.carriedWrite(entry);
        const second = makeEvent(2, 'slee-000001');
        await outbox.append({ event: second, body: JSON.stringify(second), postedAtMs: Date.now() }, write);
        await write.done;
        const after = await commandCalls(redis.url);
        expect((after.get('evalsha') ?? 0) - (before.get('evalsha') ?? 0)).toBe(1);
        expect((await store.get('anonymous', 'slee-000001'))?.lastSeq).toBe(2);
        expect(await admin.xLen('rmk:outbox:{sleeper}')).toBe(2);

        // a survivor fenced this replica: its next state write and append are refused together
        await admin.incr(store.keys.epoch('r1'));
        const fenced = store.carriedWrite({ ...entry, lastSeq: 3 });
        const third = makeEvent(3, 'slee-000001');
        const appended = outbox.append(
          { event: third, body: JSON.stringify(third), postedAtMs: Date.now() },
          fenced,
        );
        await expect(appended).rejects.toThrow(/fenced/);
        await expect(fenced.done).rejects.toMatchObject({ code: 'REPLICA_FENCED' });
        expect((await store.get('anonymous', 'slee-000001'))?.lastSeq).toBe(2);
        expect(await admin.xLen('rmk:outbox:{sleeper}')).toBe(2);
      } finally {
        await admin.close();
        await outbox.close();
        await store.close();
      }
    } finally {
      await redis.stop();
    }
  }, 120_000);
});
