import { randomUUID } from 'node:crypto';
import { ConfigError, type TaskEvent } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import {
  createRedisDedupeStore,
  type RedisClient,
  type RedisDedupeStore,
} from '@robot-mcp-kit/redis/receiver';
import {
  connectAdmin,
  deleteKeys,
  freePort,
  makeEvent,
  post,
  privateRedis,
  SECRETS,
  serve,
  SHARED_REDIS_URL,
  type RunningReceiver,
  until,
} from './redis-test.helpers.js';

/** One app instance: a receiver on its own HTTP server and its own Redis connection. */
interface Instance {
  readonly name: string;
  readonly store: RedisDedupeStore;
  readonly receiver: EventReceiver;
  readonly http: RunningReceiver;
}

describe('RedisDedupeStore on the real Redis (127.0.0.1:6379)', () => {
  const prefix = `rmk-test:${randomUUID()}:`;
  let admin: RedisClient;
  let instances: Instance[] = [];
  /** Every delivery to onEvent: which instance, which event_id. */
  let delivered: { instance: string; eventId: string }[] = [];
  /** event_ids whose onEvent throws once (then delivers). */
  let failOnce: Set<string>;

  async function startInstance(name: string, options: { ttlS?: number } = {}): Promise<Instance> {
    const store = await createRedisDedupeStore({ url: SHARED_REDIS_URL, keyPrefix: prefix, ...options });
    const receiver = createEventReceiver({
      secrets: SECRETS,
      dedupe: { store },
      onEvent: async (event: TaskEvent) => {
        await new Promise((resolve) => setImmediate(resolve)); // a handler that yields
        if (failOnce.delete(event.event_id)) throw new Error('app database down');
        delivered.push({ instance: name, eventId: event.event_id });
      },
    });
    const instance = { name, store, receiver, http: await serve(receiver) };
    instances.push(instance);
    return instance;
  }

  beforeAll(async () => {
    admin = await connectAdmin();
  });

  beforeEach(() => {
    delivered = [];
    failOnce = new Set();
  });

  afterEach(async () => {
    for (const instance of instances) {
      await instance.http.close();
      await instance.receiver.close?.();
      await instance.store.close();
    }
    instances = [];
  });

  afterAll(async () => {
    await deleteKeys(admin, prefix);
    await admin.close();
  });

  it('two receivers behind a load balancer deliver each event once, the same event POSTed to both at once', async () => {
    const a = await startInstance('a');
    const b = await startInstance('b');
    const events = Array.from({ length: 20 }, (_, i) => makeEvent(i + 1));

    const replies = await Promise.all(events.flatMap((e) => [post(a.http.url, e), post(b.http.url, e)]));

    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const ids = delivered.map((d) => d.eventId).sort();
    expect(ids).toEqual(events.map((e) => e.event_id).sort()); // each once, none missing
    expect(replies.filter((r) => r.body.duplicate === true)).toHaveLength(events.length);
    const stats = [a.store.stats(), b.store.stats()];
    expect(stats[0]!.delivered + stats[1]!.delivered).toBe(events.length);
    // a later redelivery to either instance is a duplicate too
    expect((await post(b.http.url, events[0]!)).body).toEqual({ ok: true, duplicate: true });
    expect((await post(a.http.url, events[19]!)).body).toEqual({ ok: true, duplicate: true });
    expect(delivered).toHaveLength(events.length);
  });

  it('keeps a delivered id for the whole replay window even when ttlS is shorter, so a replay stays a duplicate', async () => {
    const a = await startInstance('a', { ttlS: 1 });
    const b = await startInstance('b', { ttlS: 1 });
    const event = makeEvent();
    expect((await post(a.http.url, event)).body).toEqual({ ok: true });

    const key = `${prefix}sleeper\u0000${event.event_id}`;
    expect(await admin.get(key)).toBe('delivered');
    // ttlS 1 s asked, but 2 × maxSkewS (300) + 60 s = 660 s is the floor: the key outlives any acceptable replay
    const pttl = await admin.pTTL(key);
    expect(pttl).toBeGreaterThan(600_000);
    expect(pttl).toBeLessThanOrEqual(660_000);
    expect((await post(b.http.url, event)).body).toEqual({ ok: true, duplicate: true });
    expect(delivered).toHaveLength(1);
  });

  it('releases the claim when onEvent throws, so that the retry (on any instance) is delivered', async () => {
    const a = await startInstance('a');
    const b = await startInstance('b');
    const event = makeEvent();
    failOnce.add(event.event_id);

    const first = await post(a.http.url, event);
    expect(first.status).toBe(500);
    expect(await admin.exists(`${prefix}sleeper\u0000${event.event_id}`)).toBe(0);
    expect(a.store.stats().released).toBe(1);

    const retry = await post(b.http.url, event);
    expect(retry.body).toEqual({ ok: true });
    expect(delivered).toEqual([{ instance: 'b', eventId: event.event_id }]);
  });

  it('a second claim of an id being delivered waits for the outcome: true once delivered, false once released', async () => {
    const a = await startInstance('a');
    const b = await startInstance('b');
    const [one, two] = [`sleeper\u0000${randomUUID()}`, `sleeper\u0000${randomUUID()}`];

    const first = await a.store.claim(one);
    const waiting = await b.store.claim(one);
    expect(first.state).toBe('claimed');
    expect(waiting.state).toBe('in_flight');
    if (first.state !== 'claimed' || waiting.state !== 'in_flight') return;
    await first.settle(true);
    expect(await waiting.outcome).toBe(true);
    expect((await b.store.claim(one)).state).toBe('seen');

    const failing = await a.store.claim(two);
    const other = await b.store.claim(two);
    if (failing.state !== 'claimed' || other.state !== 'in_flight')
      throw new Error('expected claimed + in_flight');
    await failing.settle(false);
    expect(await other.outcome).toBe(false); // the receiver answers 500: the poster retries
    expect((await b.store.claim(two)).state).toBe('claimed'); // and the retry is delivered
  });

  it('fails fast at start-up when Redis is unreachable, naming the URL (credentials redacted) and the fix', async () => {
    const port = await freePort(); // nothing listens there
    const attempt = createRedisDedupeStore({ url: `redis://app:hunter2@127.0.0.1:${port}/0` });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    const error = (await attempt.catch((e: unknown) => e)) as ConfigError;
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('redis-server');
    expect(error.message).not.toContain('hunter2');
  });

  it('rejects bad options by name', async () => {
    await expect(createRedisDedupeStore({ url: 'http://127.0.0.1:6379' })).rejects.toThrow(
      /url: must start with redis:\/\/ or rediss:\/\//,
    );
    await expect(createRedisDedupeStore({ url: SHARED_REDIS_URL, keyPrefix: '' })).rejects.toThrow(
      /keyPrefix: must be a non-empty string/,
    );
    await expect(createRedisDedupeStore({ url: SHARED_REDIS_URL, claimTtlS: 0 })).rejects.toThrow(
      /claimTtlS/,
    );
  });
});

describe('RedisDedupeStore when Redis goes away mid-run (a private redis-server)', () => {
  it('answers 503 + Retry-After without delivering, then delivers once Redis is back', async () => {
    const redis = await privateRedis();
    const logger = new MemoryLogger();
    const store = await createRedisDedupeStore({ url: redis.url, logger, unavailableRetryAfterS: 3 });
    const delivered: string[] = [];
    const receiver = createEventReceiver({
      secrets: SECRETS,
      dedupe: { store },
      onEvent: (event) => {
        delivered.push(event.event_id);
      },
    });
    const http = await serve(receiver);
    try {
      const before = makeEvent(1);
      expect((await post(http.url, before)).body).toEqual({ ok: true });

      await redis.stop();
      const during = makeEvent(2);
      const refused = await post(http.url, during);
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: 'dedupe_unavailable' });
      expect(refused.retryAfter).toBe('3');
      expect(delivered).toEqual([before.event_id]);
      expect(store.stats().unavailable).toBeGreaterThanOrEqual(1);
      expect(logger.entries.some((e) => e.level === 'warn' && /Redis did not answer/.test(e.message))).toBe(
        true,
      );

      await redis.start();
      // the poster's retry: refused until the client has reconnected, then delivered once
      let last = refused;
      await until(async () => {
        last = await post(http.url, during);
        return last.status !== 503;
      }, 'a claim after Redis came back');
      expect(last.body).toEqual({ ok: true });
      expect((await post(http.url, during)).body).toEqual({ ok: true, duplicate: true });
      expect(delivered).toEqual([before.event_id, during.event_id]);
    } finally {
      await http.close();
      await receiver.close?.();
      await store.close();
      await redis.stop();
    }
  });
});
