import { describe, expect, it } from '@jest/globals';
import { connectAdmin } from '../redis-test.helpers.js';
import { CommandFeed } from './command-feed.helpers.js';
import {
  connectClient,
  privateStoreWithReceiver,
  replicaSuite,
  startReplica,
  startTask,
} from './store-replicas.helpers.js';

/**
 * A lease long enough that no timer of the replica (lease renewal every third of it, the sweeper
 * every half, the outbox's renew and take-over pass every third) fires while the test runs: what
 * Redis runs between two markers is then what the starts sent.
 */
const LONG_LEASE_MS = '600000';
/** Starts measured, each on its own (the id pool holds 16 and refills below 8: none refills it). */
const STARTS = 3;

describe('the Redis round trips of a task start with RMK_STORE (real process, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('a start, once the id pool is warm, is one round trip to Redis: one EVALSHA writing its record', async () => {
    // a Redis of this test's own: every command it runs is the replica's (or this test's)
    const { redis, callbackUrl } = await privateStoreWithReceiver(resources);
    // hold with no progress: the start is all the task sends until it is cancelled
    const replica = await startReplica(resources, {
      prefix,
      callbackUrl,
      env: { RMK_STORE: redis.url, RMK_STORE_LEASE_MS: LONG_LEASE_MS, HOLD_PROGRESS: '0' },
    });
    const client = await connectClient(resources, replica.url);
    // the first start reserves a batch of ids ahead and loads the write script (EVAL once)
    await startTask(client, 'hold');
    const admin = await connectAdmin(redis.url);
    resources.onCleanup(() => admin.close());
    const feed = await CommandFeed.open(redis.url);
    resources.onCleanup(() => feed.close());

    for (let i = 0; i < STARTS; i += 1) {
      const from = await feed.mark(admin);
      const taskId = await startTask(client, 'hold');
      const to = await feed.mark(admin);
      const sent = feed.sentBetween(from, to);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^\S+ \[\d+ [^\]]+\] "evalsha" /i);
      expect(sent[0]).toContain(`"${prefix}task:${taskId}"`);
    }
  });
});
