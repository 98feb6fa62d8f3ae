import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/core';
import { type StoredTask } from '@robot-mcp-kit/core/store';
import { createRedisTaskStore, type RedisTaskStore } from '@robot-mcp-kit/redis/server';
import { connectAdmin, deleteKeys, SECRET, SHARED_REDIS_URL } from './redis-test.helpers.js';
import { storedTask } from '../../../test/support/stored-task.fixtures.js';

function running(store: RedisTaskStore, taskId: string): StoredTask {
  return storedTask(store.replicaId, taskId, 'running', { lastSeq: 1 });
}

describe('task records sealed with a MAC (real Redis)', () => {
  const prefix = `rmk-test:${randomUUID()}:`;
  const stores: RedisTaskStore[] = [];
  const open = async (secret?: string): Promise<RedisTaskStore> => {
    const store = await createRedisTaskStore({
      url: SHARED_REDIS_URL,
      keyPrefix: prefix,
      ...(secret !== undefined ? { secret } : {}),
    });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const admin = await connectAdmin();
    await deleteKeys(admin, prefix);
    await admin.close();
  });

  it('reads back its own records, and ignores an authentic record copied under another task key (as is or with its id changed) and one without a MAC', async () => {
    const store = await open(SECRET);
    const admin = await connectAdmin();
    try {
      await store.put(running(store, 'seal-000001'));
      expect((await store.get('anonymous', 'seal-000001'))?.task.state).toBe('running');
      const sealed = (await admin.get(store.keys.task('seal-000001')))!;
      expect(sealed).toMatch(/,"mac":"[0-9a-f]{64}"\}$/);
      expect(sealed).not.toContain(SECRET);
      // an authentic record copied under another task's key: its MAC is bound to the key
      await admin.set(store.keys.task('seal-000002'), sealed.replace('seal-000001', 'seal-000002'));
      await admin.set(store.keys.task('seal-000003'), sealed);
      // a record without a MAC (written by hand, or before store MACs)
      const plain = JSON.stringify(running(store, 'seal-000004'));
      await admin.set(store.keys.task('seal-000004'), plain);
      for (const id of ['seal-000002', 'seal-000003', 'seal-000004'])
        expect(await store.get('anonymous', id)).toBeUndefined();
      expect((await store.list('anonymous')).map((e) => e.task.task_id)).toEqual(['seal-000001']);
      expect(store.stats().refusedUnauthentic).toBe(3); // the three gets (the scope index lists only seal-000001)
      // a replica with another secret (another fleet) does not accept it either
      const other = await open('another-secret-0123456789abcdef0123');
      expect(await other.get('anonymous', 'seal-000001')).toBeUndefined();
    } finally {
      await admin.close();
    }
  });

  it('an empty secret is a configuration error naming the option', async () => {
    await expect(open('  ')).rejects.toThrow(ConfigError);
    await expect(open('  ')).rejects.toThrow(/secret: must be a non-empty string/);
  });
});
