import { type TaskEvent } from '@robot-mcp-kit/core';
import { type OutboxRecord } from '@robot-mcp-kit/core/store';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { createRedisEventOutbox, OUTBOX_GROUP, type RedisEventOutbox } from '@robot-mcp-kit/redis/server';
import { connectAdmin, makeEvent, type PrivateRedis, privateRedis } from './redis-test.helpers.js';
import { CommandFeed } from './replicas/command-feed.helpers.js';

const PREFIX = 'rmk-test:removals:';
const STREAM = `${PREFIX}{sleeper}`;

function recordOf(event: TaskEvent): OutboxRecord {
  return { event, body: JSON.stringify(event), postedAtMs: Date.now() };
}

/**
 * The removals of delivered events cost no round trip of their own while events are appended:
 * watched on a Redis of the test's own through its MONITOR feed, between two markers.
 */
describe('RedisEventOutbox removals (real Redis, its MONITOR feed)', () => {
  let redis: PrivateRedis;
  let admin: RedisClient;
  let feed: CommandFeed;
  let box: RedisEventOutbox;

  beforeEach(async () => {
    redis = await privateRedis();
    admin = await connectAdmin(redis.url);
    // no background pass while the test runs (renew and take-over every claimIdleMs / 3)
    box = await createRedisEventOutbox({
      url: redis.url,
      serverName: 'sleeper',
      replicaId: 'r1',
      keyPrefix: PREFIX,
      claimIdleMs: 600_000,
    });
    await box.start(() => undefined);
    feed = await CommandFeed.open(redis.url);
  });

  afterEach(async () => {
    await feed.close();
    await box.close();
    await admin.close();
    await redis.stop();
  });

  const pending = async (): Promise<number> => (await admin.xPending(STREAM, OUTBOX_GROUP)).pending;

  it('removes delivered events in the next append script: one EVALSHA for the append and both removals', async () => {
    const [e1, e2, e3] = [makeEvent(1), makeEvent(2), makeEvent(3)];
    await box.append(recordOf(e1));
    await box.append(recordOf(e2));
    const from = await feed.mark(admin);
    const acks = [box.ack(e1.event_id), box.ack(e2.event_id)];
    await box.append(recordOf(e3));
    await Promise.all(acks);
    const to = await feed.mark(admin);

    const sent = feed.sentBetween(from, to);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^\S+ \[\d+ [^\]]+\] "evalsha" /i);
    const left = await admin.xRange(STREAM, '-', '+');
    expect((left ?? []).map((entry) => entry.message.e)).toEqual([e3.event_id]);
    expect(await pending()).toBe(1);
    expect(Number(await admin.get(`${STREAM}:bytes`))).toBe(JSON.stringify(e3).length);
    expect(box.pending).toBe(1);
  });

  it('with no append coming, the removals of one moment go as one script of their own', async () => {
    const events = [makeEvent(1), makeEvent(2), makeEvent(3), makeEvent(4)];
    for (const event of events) await box.append(recordOf(event));
    await box.ack(events[0]!.event_id); // loads the removal script (EVAL once after NOSCRIPT)
    const from = await feed.mark(admin);
    await Promise.all(events.slice(1).map((event) => box.ack(event.event_id)));
    const to = await feed.mark(admin);

    const sent = feed.sentBetween(from, to);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^\S+ \[\d+ [^\]]+\] "evalsha" /i);
    expect(await admin.xLen(STREAM)).toBe(0);
    expect(await pending()).toBe(0);
    expect(Number(await admin.get(`${STREAM}:bytes`))).toBe(0);
    expect(box.pending).toBe(0);
  });
});
