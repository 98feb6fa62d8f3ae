import { type OutboxRecord, type StoredTask } from '@robot-mcp-kit/core/store';
import { createRedisEventOutbox, createRedisTaskStore } from '@robot-mcp-kit/redis/server';
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
});
