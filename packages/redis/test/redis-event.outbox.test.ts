import { randomUUID } from 'node:crypto';
import { ConfigError, type DeliveryOutcome, EventPoster, type TaskEvent } from '@robot-mcp-kit/core';
import { type OutboxRecord } from '@robot-mcp-kit/core/store';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import {
  createRedisEventOutbox,
  OUTBOX_GROUP,
  redisEventOutbox,
  type RedisEventOutbox,
} from '@robot-mcp-kit/redis/server';
import { createClient } from 'redis';
import {
  connectAdmin,
  deleteKeys,
  freePort,
  makeEvent,
  privateRedis,
  SHARED_REDIS_URL,
  until,
} from './redis-test.helpers.js';

const down = (): DeliveryOutcome => ({ ok: false, status: 500, error: 'HTTP 500' });

function recordOf(event: TaskEvent): OutboxRecord {
  return { event, body: JSON.stringify(event), postedAtMs: Date.now() };
}

describe('RedisEventOutbox on the real Redis (127.0.0.1:6379)', () => {
  let admin: RedisClient;
  let prefix: string;
  let stream: string;
  const opened: { close(): Promise<unknown> }[] = [];

  async function outbox(
    replicaId: string,
    extra: { claimIdleMs?: number; maxEntries?: number; maxBytes?: number } = {},
  ) {
    const created = await createRedisEventOutbox({
      url: SHARED_REDIS_URL,
      serverName: 'sleeper',
      replicaId,
      keyPrefix: prefix,
      ...extra,
    });
    opened.push(created);
    return created;
  }

  function poster(box: RedisEventOutbox, transport: InMemoryEventTransport, maxRetryMs?: number) {
    const created = new EventPoster({
      serverName: 'sleeper',
      transport,
      outbox: box,
      retryDelaysMs: [50],
      retryEveryMs: 50,
      maxRetryMs,
    });
    opened.push({ close: () => created.aclose({ timeoutMs: 0 }) });
    return created;
  }

  beforeAll(async () => {
    admin = await connectAdmin();
  });

  beforeEach(() => {
    prefix = `rmk-test:${randomUUID()}:`;
    stream = `${prefix}{sleeper}`;
  });

  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
    await deleteKeys(admin, prefix);
  });

  afterAll(async () => {
    await admin.close();
  });

  it('appends an event into this replica’s pending list and removes it (XACK + XDEL) on ack', async () => {
    const box = await outbox('replica-a');
    await box.start(() => undefined);
    const event = makeEvent(1);
    await box.append(recordOf(event));

    expect(await admin.xLen(stream)).toBe(1);
    const pending = await admin.xPending(stream, OUTBOX_GROUP);
    expect(pending.pending).toBe(1);
    expect(pending.consumers).toEqual([{ name: 'replica-a', deliveriesCounter: 1 }]);
    const bytes = Number(await admin.get(`${stream}:bytes`));
    expect(bytes).toBe(JSON.stringify(event).length);

    await box.ack(event.event_id);
    expect(await admin.xLen(stream)).toBe(0);
    expect((await admin.xPending(stream, OUTBOX_GROUP)).pending).toBe(0);
    expect(Number(await admin.get(`${stream}:bytes`))).toBe(0);
    expect(box.stats()).toMatchObject({ appended: 1, acked: 1 });
  });

  it('with a poster: keeps every event while the receiver is down, removes each once delivered, in seq order', async () => {
    const box = await outbox('replica-a');
    const transport = new InMemoryEventTransport(down);
    const sink = poster(box, transport);
    await sink.open();
    const events = [1, 2, 3].map((seq) => makeEvent(seq, 'slee-000001'));
    for (const event of events) await sink.post(event);
    expect(await admin.xLen(stream)).toBe(3);

    transport.setHandler(undefined); // the receiver is back
    expect(await sink.flush(30_000)).toBe(true);
    expect(transport.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    await until(async () => (await admin.xLen(stream)) === 0, 'the stream emptied by the acks');
  });

  it('removes an event given up past the retry cap', async () => {
    const box = await outbox('replica-a');
    const transport = new InMemoryEventTransport(down);
    const sink = poster(box, transport, 300);
    await sink.open();
    await sink.post(makeEvent(1));
    expect(await admin.xLen(stream)).toBe(1);
    await until(() => sink.stats.dropped === 1, 'the event given up at the cap');
    await until(async () => (await admin.xLen(stream)) === 0, 'the given-up event removed');
  });

  it('a replica takes over a dead replica’s undelivered events after the idle time: same event_id, seq order', async () => {
    const a = await outbox('replica-a', { claimIdleMs: 400 });
    const deadTransport = new InMemoryEventTransport(down);
    const dead = poster(a, deadTransport);
    await dead.open();
    const events = [1, 2, 3, 4].map((seq) => makeEvent(seq, seq % 2 ? 'slee-00000a' : 'slee-00000b'));
    for (const event of events) await dead.post(event);
    await dead.aclose({ timeoutMs: 0 }); // gives up at once: the events stay in Redis, unrenewed

    const b = await outbox('replica-b', { claimIdleMs: 400 });
    const transport = new InMemoryEventTransport();
    const survivor = poster(b, transport);
    await survivor.open();
    await until(() => transport.deliveries.length === 4, 'the dead replica’s events delivered by B');
    const got = transport.deliveries.map((d) => d.event);
    expect(got.map((e) => e.event_id).sort()).toEqual(events.map((e) => e.event_id).sort());
    for (const task of ['slee-00000a', 'slee-00000b']) {
      const seqs = got.filter((e) => e.task_id === task).map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    }
    expect(b.stats().takenOver).toBe(4);
    await until(async () => (await admin.xLen(stream)) === 0, 'the taken-over events removed');
  });

  it('does not take over the events of a live replica (it renews them)', async () => {
    const a = await outbox('replica-a', { claimIdleMs: 300 });
    const transport = new InMemoryEventTransport(down);
    const live = poster(a, transport);
    await live.open();
    await live.post(makeEvent(1));
    const b = await outbox('replica-b', { claimIdleMs: 300 });
    const other = new InMemoryEventTransport();
    const survivor = poster(b, other);
    await survivor.open();
    // several idle periods pass (B tries to take over all along); A's renewal keeps its event its own
    const ticks = b.stats().redisErrors;
    const idlePeriodsLater = Date.now() + 4 * 300;
    await until(async () => {
      await b.tick();
      return Date.now() > idlePeriodsLater;
    }, 'four idle periods of takeover attempts');
    const info = await admin.xPending(stream, OUTBOX_GROUP);
    expect(info.consumers).toEqual([{ name: 'replica-a', deliveriesCounter: 1 }]);
    expect(other.deliveries).toHaveLength(0);
    expect(b.stats().takenOver).toBe(0);
    expect(b.stats().redisErrors).toBe(ticks);
  });

  it('a restart under the same replicaId takes its former life’s events back at once', async () => {
    const first = await outbox('replica-a');
    const dead = poster(first, new InMemoryEventTransport(down));
    await dead.open();
    const event = makeEvent(1);
    await dead.post(event);
    await dead.aclose({ timeoutMs: 0 });

    const again = await outbox('replica-a'); // default claimIdleMs (30 s): not what brings it back
    const transport = new InMemoryEventTransport();
    const restarted = poster(again, transport);
    await restarted.open();
    expect(again.stats().takenOver).toBe(1); // at open, not after an idle time
    await until(() => transport.deliveries.length === 1, 'the event delivered after the restart');
    expect(transport.deliveries[0]!.event.event_id).toBe(event.event_id);
  });

  it('refuses new events past maxEntries (never trims undelivered ones), logged; they still go out from memory', async () => {
    const box = await outbox('replica-a', { maxEntries: 2 });
    const transport = new InMemoryEventTransport(down);
    const logger = new MemoryLogger();
    const sink = new EventPoster({ serverName: 'sleeper', transport, outbox: box, logger });
    opened.push({ close: () => sink.aclose({ timeoutMs: 0 }) });
    await sink.open();
    for (const seq of [1, 2, 3]) await sink.post(makeEvent(seq));
    expect(await admin.xLen(stream)).toBe(2);
    expect(box.stats().refusedFull).toBe(1);
    expect(sink.outboxStats?.writeErrors).toBe(1);
    expect(logger.entries.some((e) => /outbox refused a write/.test(e.message))).toBe(true);
    transport.setHandler(undefined);
    expect(await sink.flush(30_000)).toBe(true);
    expect(transport.events).toHaveLength(3);
  });

  it('refuses new events past maxBytes of bodies, and takes them again once removals made room', async () => {
    const one = JSON.stringify(makeEvent(1)).length;
    const box = await outbox('replica-a', { maxBytes: 2 * one + 10 });
    await box.start(() => undefined);
    const events = [1, 2, 3].map((seq) => makeEvent(seq));
    await box.append(recordOf(events[0]!));
    await box.append(recordOf(events[1]!));
    await expect(box.append(recordOf(events[2]!))).rejects.toThrow(/is full \(maxBytes/);
    expect(await admin.xLen(stream)).toBe(2);
    await box.ack(events[0]!.event_id);
    await box.append(recordOf(events[2]!));
    expect(await admin.xLen(stream)).toBe(2);
    expect(box.stats()).toMatchObject({ appended: 3, refusedFull: 1, acked: 1 });
  });

  it('fails fast when Redis is unreachable, naming the URL (credentials redacted) and the fix', async () => {
    const port = await freePort();
    const attempt = createRedisEventOutbox({
      url: `redis://app:hunter2@127.0.0.1:${port}/0`,
      serverName: 'sleeper',
      replicaId: 'a',
    });
    const error = (await attempt.catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('redis-server');
    expect(error.message).not.toContain('hunter2');
  });

  it('redisEventOutbox() builds synchronously and connects in poster.open(), failing fast there', async () => {
    expect(() => redisEventOutbox({ url: SHARED_REDIS_URL, serverName: 'sleeper', replicaId: '' })).toThrow(
      /replicaId/,
    );
    const port = await freePort();
    const unreachable = redisEventOutbox({
      url: `redis://127.0.0.1:${port}/0`,
      serverName: 'sleeper',
      replicaId: 'a',
    });
    const failing = new EventPoster({
      serverName: 'sleeper',
      transport: new InMemoryEventTransport(),
      outbox: unreachable,
    });
    await expect(failing.open()).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}.*redis-server`));
    await failing.aclose({ timeoutMs: 0 });

    const lazy = redisEventOutbox({
      url: SHARED_REDIS_URL,
      serverName: 'sleeper',
      replicaId: 'a',
      keyPrefix: prefix,
    });
    const sink = poster(lazy, new InMemoryEventTransport(down));
    await sink.open();
    await sink.post(makeEvent(1));
    expect(await admin.xLen(stream)).toBe(1);
  });

  it('rejects bad options by name before connecting', async () => {
    await expect(
      createRedisEventOutbox({ url: SHARED_REDIS_URL, serverName: '', replicaId: 'a' }),
    ).rejects.toThrow(/serverName/);
    await expect(
      createRedisEventOutbox({ url: SHARED_REDIS_URL, serverName: 'sleeper', replicaId: 'a b' }),
    ).rejects.toThrow(/replicaId/);
    await expect(
      createRedisEventOutbox({
        url: SHARED_REDIS_URL,
        serverName: 'sleeper',
        replicaId: 'a',
        claimIdleMs: 0,
      }),
    ).rejects.toThrow(/claimIdleMs/);
    await expect(
      createRedisEventOutbox({ url: 'http://127.0.0.1:6379', serverName: 'sleeper', replicaId: 'a' }),
    ).rejects.toThrow(/url: must start with redis:\/\//);
  });
});

describe('RedisEventOutbox when Redis goes away mid-run (a private redis-server)', () => {
  it('keeps delivering from memory, never throws, and writes the events again once Redis is back', async () => {
    const redis = await privateRedis();
    const logger = new MemoryLogger();
    const box = await createRedisEventOutbox({
      url: redis.url,
      serverName: 'sleeper',
      replicaId: 'a',
      claimIdleMs: 300,
      logger,
    });
    const transport = new InMemoryEventTransport(down);
    const sink = new EventPoster({
      serverName: 'sleeper',
      transport,
      outbox: box,
      retryDelaysMs: [50],
      retryEveryMs: 50,
    });
    const admin = createClient({ url: redis.url });
    try {
      await sink.open();
      await sink.post(makeEvent(1));
      await redis.stop();
      const during = makeEvent(2);
      await expect(sink.post(during)).resolves.toBeUndefined(); // logged and counted, not thrown
      expect(box.stats().writeErrors).toBe(1);
      await redis.start(); // an empty Redis (no persistence): only what is written again is there
      await admin.connect();
      await until(
        async () => (await admin.xLen('rmk:outbox:{sleeper}').catch(() => 0)) >= 1,
        'the unwritten event written again',
      );
      const bodies = await admin.xRange('rmk:outbox:{sleeper}', '-', '+');
      expect((bodies ?? []).map((m) => m.message.e)).toContain(during.event_id);
      transport.setHandler(undefined);
      expect(await sink.flush(30_000)).toBe(true);
      expect(transport.events.map((e) => e.seq)).toEqual([1, 2]);
      expect(box.stats().redisErrors).toBeGreaterThanOrEqual(1);
      await until(
        async () => (await admin.xLen('rmk:outbox:{sleeper}')) === 0,
        'the delivered events removed',
      );
    } finally {
      await sink.aclose({ timeoutMs: 0 });
      if (admin.isOpen) await admin.close();
      await redis.stop();
    }
  });
});
