import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { KIT_ATTRIBUTES, KIT_METRICS } from '@robot-mcp-kit/core/telemetry';
import { createRedisTaskStore } from '@robot-mcp-kit/redis/server';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { TestTelemetry } from '../../../test/support/otel.js';
import { connectAdmin, deleteKeys, SHARED_REDIS_URL, until } from './redis-test.helpers.js';

const otel = TestTelemetry.register();
const prefix = `rmk-test:${randomUUID()}:`;
let admin: RedisClient | undefined;
afterAll(async () => {
  if (admin) {
    await deleteKeys(admin, prefix);
    await admin.close();
  }
  await otel.disable();
});

describe('robot_mcp_kit.replica.leases', () => {
  it('counts a replica lease acquired, renewed, lost (fenced) and released', async () => {
    admin = await connectAdmin();
    const leases = (change: string, replicaId: string) =>
      otel.sum(KIT_METRICS.replicaLeases.name, {
        [KIT_ATTRIBUTES.leaseChange]: change,
        [KIT_ATTRIBUTES.replicaId]: replicaId,
      });
    const kept = await createRedisTaskStore({
      url: SHARED_REDIS_URL,
      keyPrefix: `${prefix}a:`,
      leaseMs: 600,
    });
    expect(await leases('acquired', kept.replicaId)).toBe(1);
    await until(async () => (await leases('renewed', kept.replicaId)) >= 2, 'two renewals');
    await kept.close();
    expect(await leases('released', kept.replicaId)).toBe(1);
    expect(await leases('lost', kept.replicaId)).toBe(0);

    const fenced = await createRedisTaskStore({
      url: SHARED_REDIS_URL,
      keyPrefix: `${prefix}b:`,
      leaseMs: 600,
    });
    // what a survivor does to a replica it judged lost: raise its epoch
    await admin.incr(fenced.keys.epoch(fenced.replicaId));
    await until(async () => (await leases('lost', fenced.replicaId)) === 1, 'the lease lost');
    await fenced.close();
    expect(await leases('acquired', fenced.replicaId)).toBe(1);
    expect(await leases('released', fenced.replicaId)).toBe(0);
  });
});
