import { randomUUID } from 'node:crypto';
import { type EventOutbox, InMemoryEventOutbox, type OutboxRecord } from '@robot-mcp-kit/core/store';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { createRedisEventOutbox } from '@robot-mcp-kit/redis/server';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { connectAdmin, deleteKeys, makeEvent, SHARED_REDIS_URL, until } from '../redis-test.helpers.js';

// The EventOutbox contract (packages/core/src/events/event-outbox.port.ts), one suite run against
// every adapter: an outbox keeps what was appended until it is acked, and hands it to the next
// life of the replica (the next poster opened on it). What one adapter alone does (Redis's
// takeover from other replicas, its bounds and outages; the poster on top) stays in its own tests.

/** One adapter under test: two lives of one replica's outbox on one storage. */
interface Adapter {
  readonly name: string;
  /** This test's first life. */
  open(): Promise<EventOutbox>;
  /** The next life on the same storage, once `previous` was closed. */
  reopen(previous: EventOutbox): Promise<EventOutbox>;
  /** Starts a new storage (called before each test). */
  fresh(): void;
  /** Releases what the suite used. */
  teardown(): Promise<void>;
}

let prefix = '';
const used: string[] = [];

const redisOutbox = () =>
  createRedisEventOutbox({
    url: SHARED_REDIS_URL,
    serverName: 'sleeper',
    replicaId: 'replica-a',
    keyPrefix: prefix,
  });

const ADAPTERS: Adapter[] = [
  {
    name: 'InMemoryEventOutbox',
    open: () => Promise.resolve(new InMemoryEventOutbox()),
    reopen: (previous) => {
      const same = previous as InMemoryEventOutbox;
      same.orphanAll(); // a new life owns nothing yet
      return Promise.resolve(same);
    },
    fresh: () => undefined,
    teardown: () => Promise.resolve(),
  },
  {
    name: 'RedisEventOutbox on the real Redis (127.0.0.1:6379)',
    open: redisOutbox,
    reopen: redisOutbox,
    fresh: () => {
      prefix = `rmk-test:${randomUUID()}:`;
      used.push(prefix);
    },
    teardown: async () => {
      const admin: RedisClient = await connectAdmin();
      for (const p of used) await deleteKeys(admin, p);
      await admin.close();
    },
  },
];

function recordOf(event: TaskEvent): OutboxRecord {
  return { event, body: JSON.stringify(event), postedAtMs: Date.now() };
}

describe.each(ADAPTERS)('EventOutbox contract: $name', (adapter) => {
  const opened: EventOutbox[] = [];

  async function life(previous?: EventOutbox): Promise<EventOutbox> {
    const outbox = previous ? await adapter.reopen(previous) : await adapter.open();
    opened.push(outbox);
    return outbox;
  }

  beforeEach(() => adapter.fresh());

  afterEach(async () => {
    for (const outbox of opened.splice(0).reverse()) await outbox.close().catch(() => undefined);
  });

  afterAll(() => adapter.teardown());

  it('hands a first life nothing at start', async () => {
    const outbox = await life();
    const handed: OutboxRecord[] = [];
    await outbox.start((records) => handed.push(...records));
    await outbox.append(recordOf(makeEvent(1, `slee-${randomUUID()}`)));
    expect(handed).toEqual([]);
  });

  it('hands the next life what was appended and not acked, bodies intact, in append order', async () => {
    const taskId = `slee-${randomUUID()}`;
    const [one, two, three] = [makeEvent(1, taskId), makeEvent(2, taskId), makeEvent(3, taskId)];
    const first = await life();
    await first.start(() => undefined);
    for (const event of [one, two, three]) await first.append(recordOf(event));
    await first.ack(two.event_id);
    await first.close();

    const next = await life(first);
    const handed: OutboxRecord[] = [];
    await next.start((records) => handed.push(...records));
    await until(() => handed.length >= 2, 'the unacked events handed to the next life');
    expect(handed.map((r) => r.event.event_id)).toEqual([one.event_id, three.event_id]);
    expect(handed.map((r) => r.body)).toEqual([JSON.stringify(one), JSON.stringify(three)]);
  });

  it('hands nothing back once everything was acked', async () => {
    const event = makeEvent(1, `slee-${randomUUID()}`);
    const first = await life();
    await first.start(() => undefined);
    await first.append(recordOf(event));
    await first.ack(event.event_id);
    await first.close();

    const next = await life(first);
    const handed: OutboxRecord[] = [];
    await next.start((records) => handed.push(...records));
    await next.append(recordOf(makeEvent(2, event.task_id)));
    expect(handed).toEqual([]);
  });
});
