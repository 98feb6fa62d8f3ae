import { type CarriedTaskWrite, type EventOutbox, type OutboxRecord } from '@robot-mcp-kit/core/store';
import { errorText, inSeqOrder, recordOf, type StreamEntry } from './redis-outbox.entries.js';
import { OutboxFencedError, OutboxFullError, RedisOutboxStream } from './redis-outbox.stream.js';
import {
  type RedisEventOutboxOptions,
  type ResolvedRedisEventOutboxOptions,
  resolveRedisEventOutboxOptions,
} from './redis-outbox.options.js';
import { closeClient } from './redis-connection.js';
import { type KitRedisClient } from './redis.scripts.js';
import { RetryBuffer } from './redis-outbox.retry.js';
import { type RedisEventOutboxStats } from './redis-outbox.stats.js';
import { LogThrottle } from './log-throttle.js';

export type { RedisEventOutboxStats } from './redis-outbox.stats.js';
export { OUTBOX_GROUP } from './redis-outbox.stream.js';

const CLAIM_PAGES_PER_TICK = 10;
/** A clock further than this from Redis server time is warned about at start-up. */
export const CLOCK_WARN_MS = 5000;

/** Where one event of this replica is in the stream. */
interface Owned {
  /** The stream entry id once written. */
  id?: string;
  /** The write under way (never rejects). */
  writing?: Promise<void>;
}

/**
 * The Redis Streams adapter of core's {@link EventOutbox}. All replicas of one server name share
 * one stream (`<keyPrefix>{<serverName>}`) and one consumer group; each replica is a consumer
 * named by its `replicaId`. An event is appended and read into this replica's pending list in
 * one atomic script, and removed (XACK + XDEL) once delivered or given up. A live replica renews
 * its pending events every `claimIdleMs / 3`; every replica takes over, with XAUTOCLAIM, the
 * events idle longer than `claimIdleMs` — those of a replica that died — and delivers them with
 * the same `event_id` (at-least-once; receivers dedupe). The stream is capped by `maxEntries`
 * and `maxBytes`: past a cap new events are not stored (logged, counted) and still go out from
 * memory; undelivered events are never trimmed. A Redis outage is logged, counted and retried.
 */
export class RedisEventOutbox implements EventOutbox {
  readonly description: string;
  private readonly options: ResolvedRedisEventOutboxOptions;
  private readonly owned = new Map<string, Owned>();
  private readonly retry: RetryBuffer;
  private readonly stream: RedisOutboxStream;
  private readonly failedAcks = new Set<string>();
  private readonly counts = {
    appended: 0,
    acked: 0,
    refusedFull: 0,
    writeErrors: 0,
    retryDropped: 0,
    ackErrors: 0,
    takenOver: 0,
    redisErrors: 0,
    refusedUnauthentic: 0,
    refusedFenced: 0,
  };
  private deliver: ((records: readonly OutboxRecord[]) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  private readonly throttle = new LogThrottle();
  /**
   * This process's clock minus Redis server time (`TIME`), sampled at start and on every pass.
   * Stored first-post times are Redis time, so a replica whose clock is off computes the age of a
   * taken-over event (its retry window, its give-up deadline) right.
   */
  private clockOffsetMs = 0;

  /**
   * @param client a connected node-redis client (`disableOfflineQueue: true` and a command timeout
   *   make an outage fail fast, as {@link createRedisEventOutbox} does).
   * @param ownsClient whether {@link close} closes the client.
   * @param connect connects the client in {@link start} (see {@link redisEventOutbox}).
   */
  constructor(
    private readonly client: KitRedisClient,
    options: RedisEventOutboxOptions,
    private readonly ownsClient = false,
    private readonly connect?: () => Promise<void>,
  ) {
    this.options = resolveRedisEventOutboxOptions(options);
    this.stream = new RedisOutboxStream(client, this.options);
    this.description = `redis stream ${this.options.stream} (replica ${this.options.replicaId})`;
    this.retry = new RetryBuffer(this.options.maxRetryBytes, () => {
      this.counts.retryDropped += 1;
      this.warn(
        'retry',
        'error',
        'outbox retry buffer full: the oldest unwritten event is not stored durably (it is still delivered from memory)',
        {},
      );
    });
  }

  stats(): RedisEventOutboxStats {
    return { ...this.counts };
  }

  /** Events of this replica in the stream or waiting to be written (not yet delivered). */
  get pending(): number {
    return this.owned.size;
  }

  /**
   * Appends the event (see the class); with `task` (`RedisTaskStore.carriedWrite`), the task
   * store's write of its task goes in the same script first: one round trip for both.
   */
  async append(record: OutboxRecord, task?: CarriedTaskWrite): Promise<void> {
    if (this.closed) {
      const error = new Error('the Redis event outbox is closed');
      task?.settle({ error });
      throw error;
    }
    const eventId = record.event.event_id;
    const slot: Owned = {};
    this.owned.set(eventId, slot);
    const write = this.stream.append(this.stored(record), task);
    slot.writing = write.then(
      (id) => void (slot.id = id),
      () => undefined,
    );
    try {
      slot.id = await write;
      this.counts.appended += 1;
    } catch (error) {
      if (error instanceof OutboxFullError) {
        this.owned.delete(eventId);
        this.counts.refusedFull += 1;
        this.warn('full', 'error', error.message, { event_id: eventId, refused: this.counts.refusedFull });
      } else if (error instanceof OutboxFencedError) {
        this.owned.delete(eventId);
        this.counts.refusedFenced += 1;
      } else {
        this.counts.writeErrors += 1;
        this.retry.add(record);
      }
      throw error;
    } finally {
      slot.writing = undefined;
    }
  }

  /**
   * Forgets every event of this replica without removing any: those in the stream are no longer
   * renewed (the survivor claimed them, or takes them once idle), those never written are not
   * written. This replica was fenced and a survivor took its tasks over; new appends go on.
   */
  relinquish(): void {
    for (const eventId of this.owned.keys()) this.retry.remove(eventId);
    this.owned.clear();
    this.failedAcks.clear();
  }

  async ack(eventId: string): Promise<void> {
    const slot = this.owned.get(eventId);
    if (!slot) return;
    if (slot.writing) await slot.writing;
    if (slot.id === undefined) {
      this.retry.remove(eventId); // never written: nothing to remove in Redis
      this.owned.delete(eventId);
      return;
    }
    try {
      await this.stream.remove(slot.id);
    } catch (error) {
      this.counts.ackErrors += 1;
      this.failedAcks.add(eventId);
      throw error;
    }
    this.failedAcks.delete(eventId);
    this.owned.delete(eventId);
    this.counts.acked += 1;
  }

  /**
   * Creates the group if needed, hands over this replica's own pending events (a former life under
   * the same `replicaId`) and any idle ones at once, then renews and takes over every `claimIdleMs / 3`.
   */
  async start(deliver: (records: readonly OutboxRecord[]) => void): Promise<void> {
    if (this.deliver) return;
    await this.connect?.(); // built by redisEventOutbox(): connects here, failing fast
    this.deliver = deliver;
    await this.sampleClock();
    if (Math.abs(this.clockOffsetMs) > CLOCK_WARN_MS) {
      this.options.logger.warn(
        "this replica's clock differs from Redis server time; the outbox reckons event ages on Redis time",
        { clock_offset_ms: this.clockOffsetMs },
      );
    }
    await this.stream.createGroup();
    await this.takeOwnHistory();
    await this.takeOver();
    const every = Math.max(50, Math.floor(this.options.claimIdleMs / 3));
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
  }

  /**
   * Takes over at once every pending event of `replicaId`, a replica the task store judged lost
   * (fenced: it appends and delivers nothing more), and hands them to the poster before resolving.
   * The survivor calls it before it posts the `REPLICA_LOST` failure of that replica's task, which
   * then follows the task's pending events in the poster's queue.
   */
  async takeOverFrom(replicaId: string): Promise<void> {
    if (this.closed || !this.deliver || replicaId === this.options.replicaId) return;
    await this.handOver(await this.stream.claimAllOf(replicaId));
  }

  /** Stops renewing and taking over; this replica's undelivered events stay for the next owner. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await this.stream.flushRemovals().catch(() => undefined); // a failed one: left for the next owner
    if (this.ownsClient) await closeClient(this.client);
  }

  /** One background pass; a failed pass is logged and counted, and the next one tries again. */
  tick(): Promise<void> {
    this.ticking ??= this.pass().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async pass(): Promise<void> {
    if (this.closed) return;
    try {
      await this.sampleClock();
      await this.rewrite();
      for (const eventId of [...this.failedAcks]) await this.ack(eventId);
      await this.renew();
      await this.takeOver();
    } catch (error) {
      this.counts.redisErrors += 1;
      if (/NOGROUP/.test(errorText(error))) await this.stream.createGroup().catch(() => undefined);
      this.warn(
        'outage',
        'warn',
        'Redis outbox unavailable: events still go out from memory; writes, removals and takeover are retried',
        {
          error: errorText(error),
          unwritten: this.retry.size,
          unwritten_bytes: this.retry.bytes,
          errors_so_far: this.counts.redisErrors,
        },
      );
    }
  }

  /** Writes again, in order, the events whose write failed while Redis was away. */
  private async rewrite(): Promise<void> {
    for (const record of this.retry.records()) {
      const slot = this.owned.get(record.event.event_id);
      this.retry.remove(record.event.event_id);
      if (!slot || slot.id !== undefined) continue;
      try {
        slot.id = await this.stream.append(this.stored(record));
        this.counts.appended += 1;
        // delivered while it was being written again: remove it at once
        if (this.owned.get(record.event.event_id) !== slot) await this.stream.remove(slot.id);
      } catch (error) {
        if (error instanceof OutboxFullError || error instanceof OutboxFencedError) {
          if (error instanceof OutboxFullError) this.counts.refusedFull += 1;
          else this.counts.refusedFenced += 1;
          this.owned.delete(record.event.event_id);
          continue;
        }
        this.retry.unshift(record);
        throw error;
      }
    }
  }

  /** Resets the idle time of this replica's pending events, so that no live replica takes them. */
  private async renew(): Promise<void> {
    const ids: string[] = [];
    for (const slot of this.owned.values()) if (slot.id !== undefined) ids.push(slot.id);
    await this.stream.renew(ids);
  }

  /** XAUTOCLAIM of the events idle past `claimIdleMs` (a dead replica's), handed to the poster. */
  private async takeOver(): Promise<void> {
    let cursor = '0-0';
    for (let page = 0; page < CLAIM_PAGES_PER_TICK && !this.closed; page += 1) {
      const { entries, next } = await this.stream.claimIdle(cursor);
      await this.handOver(entries);
      cursor = next;
      if (cursor === '0-0') return;
    }
  }

  /** Reads this replica's own pending entries (a former life under the same replicaId). */
  private async takeOwnHistory(): Promise<void> {
    let from = '0-0';
    for (;;) {
      const entries = await this.stream.readOwn(from);
      if (entries.length === 0) return;
      await this.handOver(entries);
      from = entries[entries.length - 1]!.id;
    }
  }

  /** Parses taken-over entries and gives them to the poster, each task's events in `seq` order. */
  private async handOver(entries: readonly StreamEntry[]): Promise<void> {
    const taken: OutboxRecord[] = [];
    for (const { id, fields } of entries) {
      if (fields === undefined) await this.stream.remove(id); // deleted, still pending: forget it
      if (fields?.e === undefined || this.owned.has(fields.e)) continue;
      if (!(await this.authentic(id, fields))) continue;
      try {
        const record = recordOf(fields);
        taken.push({ ...record, postedAtMs: record.postedAtMs + this.clockOffsetMs });
      } catch (error) {
        this.warn('bad', 'error', 'outbox entry is not a valid event; removed', {
          id,
          error: errorText(error),
        });
        await this.stream.remove(id);
        continue;
      }
      this.owned.set(fields.e, { id });
    }
    if (taken.length === 0) return;
    this.counts.takenOver += taken.length;
    this.options.logger.info('took over undelivered events from the outbox', {
      events: taken.length,
      taken_over_so_far: this.counts.takenOver,
    });
    this.deliver?.(inSeqOrder(taken));
  }

  /**
   * Whether a taken-over entry carries a valid MAC; one that does not (written without the secret,
   * or before store MACs) is removed, counted and logged, and never delivered.
   */
  private async authentic(id: string, fields: Record<string, string>): Promise<boolean> {
    const refused = this.stream.refusalOf(fields);
    if (refused === undefined) return true;
    this.counts.refusedUnauthentic += 1;
    this.warn(
      `unauthentic-${refused}`,
      'error',
      'outbox entry without a valid MAC (not written by a replica with the event secret); removed, not delivered',
      {
        id,
        event_id: fields.e,
        task_id: fields.t,
        reason: refused,
        refused_so_far: this.counts.refusedUnauthentic,
      },
    );
    await this.stream.remove(id);
    return false;
  }

  /** The record as stored: its first-post time on Redis server time. */
  private stored(record: OutboxRecord): OutboxRecord {
    return this.clockOffsetMs === 0
      ? record
      : { ...record, postedAtMs: record.postedAtMs - this.clockOffsetMs };
  }

  /** Samples this clock minus Redis server time (`TIME`), halfway through the round trip. */
  private async sampleClock(): Promise<void> {
    const before = Date.now();
    const reply = (await this.client.sendCommand(['TIME'])) as [string, string];
    const after = Date.now();
    const redisMs = Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000);
    this.clockOffsetMs = Math.round((before + after) / 2 - redisMs);
  }

  /** Logs `message` at most once per 10 s per kind. */
  private warn(kind: string, level: 'warn' | 'error', message: string, meta: Record<string, unknown>): void {
    if (!this.throttle.due(kind)) return;
    this.options.logger[level](message, meta);
  }
}
