import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { until } from '../../../../test/support/until.js';
import { connectAdmin, privateRedis } from '../redis-test.helpers.js';
import {
  connectClient,
  REPLICA_SECRET,
  replicaSuite,
  startReplica,
  startTask,
} from './store-replicas.helpers.js';

/** What Redis's MONITOR feed showed between two markers: each command as its words. */
class CommandFeed {
  readonly lines: string[] = [];

  private constructor(private readonly monitor: RedisClient) {}

  static async open(url: string): Promise<CommandFeed> {
    const monitor = await connectAdmin(url);
    const feed = new CommandFeed(monitor);
    await monitor.monitor((line: string) => feed.lines.push(line));
    return feed;
  }

  /**
   * Sends a marker command on `admin` and resolves once the feed shows it: Redis runs commands one
   * at a time, so every command it ran before the marker is in the feed by then.
   */
  async mark(admin: RedisClient): Promise<number> {
    const marker = `round-trip-marker:${randomUUID()}`;
    await admin.echo(marker);
    let at = -1;
    await until(() => (at = this.lines.findIndex((line) => line.includes(marker))) >= 0, 'the marker');
    return at;
  }

  close(): Promise<void> {
    return this.monitor.close();
  }
}

/**
 * A lease long enough that no timer of the replica (lease renewal every third of it, the sweeper
 * every half, the outbox's renew and take-over pass every third) fires while the test runs: what
 * Redis runs between two markers is then what the starts sent.
 */
const LONG_LEASE_MS = '600000';
/** Starts measured, each on its own (the id pool holds 16 and refills below 8: none refills it). */
const STARTS = 3;

/** A command a client sent (a line of the feed not run by a script: `[<db> lua]`). */
const sentByClient = (line: string): boolean => !/^\S+ \[\d+ lua\]/.test(line);

describe('the Redis round trips of a task start with RMK_STORE (real process, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('a start, once the id pool is warm, is one round trip to Redis: one EVALSHA writing its record', async () => {
    // a Redis of this test's own: every command it runs is the replica's (or this test's)
    const redis = await privateRedis();
    resources.onCleanup(() => redis.stop());
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
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
      const sent = feed.lines.slice(from + 1, to).filter(sentByClient);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^\S+ \[\d+ [^\]]+\] "evalsha" /i);
      expect(sent[0]).toContain(`"${prefix}task:${taskId}"`);
    }
  });
});
