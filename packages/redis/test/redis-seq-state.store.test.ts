import { randomUUID } from 'node:crypto';
import { ConfigError, type EventType, TaskEvent } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver, type EventReceiver, type SeqGap } from '@robot-mcp-kit/receiver';
import {
  createRedisDedupeStore,
  createRedisSeqStateStore,
  type RedisClient,
  type RedisDedupeStore,
  type RedisSeqStateStore,
} from '@robot-mcp-kit/redis/receiver';
import {
  connectAdmin,
  deleteKeys,
  freePort,
  post,
  privateRedis,
  SECRETS,
  serve,
  SHARED_REDIS_URL,
  type RunningReceiver,
  until,
} from './redis-test.helpers.js';

/** A valid event of `taskId` with this seq and type (fresh event_id). */
function eventOf(taskId: string, seq: number, type: EventType = 'progress' as EventType): TaskEvent {
  return TaskEvent.create({
    event_id: randomUUID(),
    task_id: taskId,
    server: 'sleeper',
    tool: 'sleep_task',
    type,
    seq,
    ts: new Date(),
    payload: type === 'progress' ? { percent: seq } : { result: 'ok' },
  });
}

const TASK = { server: 'sleeper', taskId: 'slee-1' };

describe('RedisSeqStateStore on the real Redis (127.0.0.1:6379)', () => {
  let admin: RedisClient;
  let prefix: string;
  let stores: RedisSeqStateStore[] = [];

  async function open(
    options: { finishedTtlS?: number; idleTtlS?: number } = {},
  ): Promise<RedisSeqStateStore> {
    const store = await createRedisSeqStateStore({ url: SHARED_REDIS_URL, keyPrefix: prefix, ...options });
    stores.push(store);
    return store;
  }

  beforeAll(async () => {
    admin = await connectAdmin();
  });

  beforeEach(() => {
    prefix = `rmk-test:seq:${randomUUID()}:`;
  });

  afterEach(async () => {
    for (const store of stores) await store.close();
    stores = [];
    await deleteKeys(admin, prefix);
  });

  afterAll(async () => {
    await admin.close();
  });

  it('reports a gap once across instances, and a seq not newer than the highest as late', async () => {
    const a = await open();
    const b = await open();
    expect(await a.begin(TASK, 1, [])).toEqual({ state: 'ok', highest: 0, gapExpected: undefined });
    expect(await a.commit(TASK, 1, false)).toBe(0);
    expect(await b.begin(TASK, 2, [])).toEqual({ state: 'ok', highest: 1, gapExpected: undefined });
    expect(await b.commit(TASK, 2, false)).toBe(1);
    // seq 3 missing: 4 is a gap, told to one instance only
    expect(await a.begin(TASK, 4, [])).toEqual({ state: 'ok', highest: 2, gapExpected: 3 });
    expect(await b.begin(TASK, 4, [])).toEqual({ state: 'ok', highest: 2, gapExpected: undefined });
    await b.commit(TASK, 4, false);
    // the missing one arrives late
    expect(await a.begin(TASK, 3, [])).toEqual({ state: 'ok', highest: 4, gapExpected: undefined });
    expect(a.stats().gaps + b.stats().gaps).toBe(1);
  });

  it('counts coalesced ranges right after the highest seq as no gap', async () => {
    const a = await open();
    await a.commit(TASK, 1, false);
    expect(await a.begin(TASK, 5, [[2, 4]])).toEqual({ state: 'ok', highest: 1, gapExpected: undefined });
    // a range that does not start right after the highest leaves a real gap
    expect(await a.begin(TASK, 9, [[3, 8]])).toEqual({ state: 'ok', highest: 1, gapExpected: 2 });
  });

  it('bounds memory by key expiry: idle tasks after idleTtlS, finished ones after finishedTtlS', async () => {
    const a = await open({ idleTtlS: 3600, finishedTtlS: 30 });
    await a.commit(TASK, 1, false);
    const key = `${prefix}sleeper:slee-1`;
    const idle = await admin.pTTL(key);
    expect(idle).toBeGreaterThan(30_000);
    expect(idle).toBeLessThanOrEqual(3_600_000);
    await a.commit(TASK, 2, true);
    const finished = await admin.pTTL(key);
    expect(finished).toBeGreaterThan(0);
    expect(finished).toBeLessThanOrEqual(30_000);
    expect(await admin.hGet(key, 'f')).toBe('1');
    // a late event of a finished task keeps the shorter expiry
    await a.commit(TASK, 1, false);
    expect(await admin.pTTL(key)).toBeLessThanOrEqual(30_000);
  });

  it('fails fast at start-up when Redis is unreachable, naming the URL and the fix; bad options by name', async () => {
    const port = await freePort();
    const attempt = createRedisSeqStateStore({ url: `redis://app:hunter2@127.0.0.1:${port}/0` });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    const error = (await attempt.catch((e: unknown) => e)) as ConfigError;
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('redis-server');
    expect(error.message).not.toContain('hunter2');
    await expect(createRedisSeqStateStore({ url: SHARED_REDIS_URL, keyPrefix: '' })).rejects.toThrow(
      /keyPrefix: must be a non-empty string/,
    );
    await expect(createRedisSeqStateStore({ url: SHARED_REDIS_URL, finishedTtlS: -1 })).rejects.toThrow(
      /finishedTtlS/,
    );
  });
});

/** One app instance: a receiver on its own HTTP server. */
interface Instance {
  readonly receiver: EventReceiver;
  readonly http: RunningReceiver;
  close(): Promise<void>;
}

describe('two receivers behind a load balancer, events of the same tasks alternating between them', () => {
  let admin: RedisClient;
  let prefix: string;
  let instances: Instance[] = [];
  let delivered: string[] = [];
  let gaps: SeqGap[] = [];

  async function startInstance(shared: boolean): Promise<Instance> {
    let dedupe: RedisDedupeStore | undefined;
    let seq: RedisSeqStateStore | undefined;
    if (shared) {
      dedupe = await createRedisDedupeStore({ url: SHARED_REDIS_URL, keyPrefix: `${prefix}dedupe:` });
      seq = await createRedisSeqStateStore({ url: SHARED_REDIS_URL, keyPrefix: `${prefix}seq:` });
    }
    const receiver = createEventReceiver({
      secrets: SECRETS,
      ...(dedupe ? { dedupe: { store: dedupe } } : {}),
      ...(seq ? { seqState: { store: seq } } : {}),
      onEvent: async (event: TaskEvent) => {
        await new Promise((resolve) => setImmediate(resolve));
        delivered.push(event.event_id);
      },
      onGap: (gap) => {
        gaps.push(gap);
      },
    });
    const http = await serve(receiver);
    const instance: Instance = {
      receiver,
      http,
      close: async () => {
        await http.close();
        await receiver.close();
        await dedupe?.close();
        await seq?.close();
      },
    };
    instances.push(instance);
    return instance;
  }

  /** Events of three tasks: two complete, one with seq 5 never posted. */
  function traffic(): { events: TaskEvent[]; missing: TaskEvent } {
    const events: TaskEvent[] = [];
    let missing: TaskEvent | undefined;
    for (const task of ['slee-a', 'slee-b', 'slee-c']) {
      for (let seq = 1; seq <= 8; seq += 1) {
        const event = eventOf(task, seq, (seq === 8 ? 'task_done' : 'progress') as EventType);
        if (task === 'slee-c' && seq === 5) missing = event;
        else events.push(event);
      }
    }
    return { events, missing: missing as TaskEvent };
  }

  beforeAll(async () => {
    admin = await connectAdmin();
  });

  beforeEach(() => {
    prefix = `rmk-test:lb:${randomUUID()}:`;
    delivered = [];
    gaps = [];
  });

  afterEach(async () => {
    for (const instance of instances) await instance.close();
    instances = [];
    await deleteKeys(admin, prefix);
  });

  afterAll(async () => {
    await admin.close();
  });

  it('with shared Redis state: no false gap, the real gap reported once, each event delivered once', async () => {
    const a = await startInstance(true);
    const b = await startInstance(true);
    const { events, missing } = traffic();
    // each task's events in seq order (as a poster sends them), alternating a, b, a, b …
    for (const [i, event] of events.entries()) {
      const first = i % 2 === 0 ? a : b;
      const other = first === a ? b : a;
      expect((await post(first.http.url, event)).body).toEqual({ ok: true });
      // a retry that the load balancer sends to the other instance is a duplicate
      expect((await post(other.http.url, event)).body).toEqual({ ok: true, duplicate: true });
    }
    expect(gaps).toEqual([{ task_id: 'slee-c', server: 'sleeper', expected: 5, got: 6 }]);
    expect([...delivered].sort()).toEqual(events.map((e) => e.event_id).sort());
    const statsOf = (i: Instance) => i.receiver.stats();
    expect(statsOf(a).gaps + statsOf(b).gaps).toBe(1);
    expect(statsOf(a).late + statsOf(b).late).toBe(0);

    // the missing seq, arriving at last on either instance, is delivered as late, with no new gap
    expect((await post(b.http.url, missing)).body).toEqual({ ok: true });
    expect(statsOf(a).late + statsOf(b).late).toBe(1);
    expect(gaps).toHaveLength(1);
  });

  it('with in-memory state (the default), the same alternating traffic reports false gaps', async () => {
    const a = await startInstance(false);
    const b = await startInstance(false);
    const { events } = traffic();
    for (const [i, event] of events.entries()) {
      expect((await post((i % 2 === 0 ? a : b).http.url, event)).body).toEqual({ ok: true });
    }
    const falseGaps = gaps.filter((g) => g.task_id !== 'slee-c');
    expect(falseGaps.length).toBeGreaterThan(0); // each instance sees every other seq as a hole
  });
});

describe('RedisSeqStateStore when Redis goes away mid-run (a private redis-server)', () => {
  it('answers 503 + Retry-After without delivering, then delivers once Redis is back', async () => {
    const redis = await privateRedis();
    const logger = new MemoryLogger();
    const seq = await createRedisSeqStateStore({ url: redis.url, logger, unavailableRetryAfterS: 3 });
    const delivered: string[] = [];
    const receiver = createEventReceiver({
      secrets: SECRETS,
      seqState: { store: seq },
      onEvent: (event) => {
        delivered.push(event.event_id);
      },
    });
    const http = await serve(receiver);
    try {
      const before = eventOf('slee-x', 1);
      expect((await post(http.url, before)).body).toEqual({ ok: true });

      await redis.stop();
      const during = eventOf('slee-x', 2);
      const refused = await post(http.url, during);
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: 'seq_state_unavailable' });
      expect(refused.retryAfter).toBe('3');
      expect(delivered).toEqual([before.event_id]);
      expect(receiver.stats().seqStateUnavailable).toBeGreaterThanOrEqual(1);
      expect(logger.entries.some((e) => e.level === 'warn' && /seq-state/.test(e.message))).toBe(true);

      await redis.start(); // empty: a fresh Redis forgot the task, so seq 2 is delivered as a gap
      await until(async () => (await post(http.url, during)).status === 200, 'delivery once Redis is back');
      expect(delivered).toEqual([before.event_id, during.event_id]);
    } finally {
      await http.close();
      await receiver.close();
      await seq.close();
      await redis.stop();
    }
  });
});
