import { type CarriedTaskWrite, type OutboxRecord } from '@robot-mcp-kit/core/store';
import { entriesOf, errorText, type StreamEntry } from './redis-outbox.entries.js';
import { type ResolvedRedisEventOutboxOptions } from './redis-outbox.options.js';
import { type KitRedisClient } from './redis.scripts.js';
import { RemovalQueue } from './redis-outbox.removals.js';
import { type Refusal } from './store-contents.mac.js';

/** The fields of an entry a MAC covers: event_id, task_id, seq, first-post time, body. */
function entryFields(
  eventId: string,
  taskId: string,
  seq: number,
  postedAtMs: number,
  body: string,
): string[] {
  return [eventId, taskId, String(seq), String(Math.floor(postedAtMs)), body];
}

/** The consumer group of the posters of one server name. */
export const OUTBOX_GROUP = 'posters';
const CLAIM_PAGE = 100;
const RENEW_BATCH = 1000;
/** Pages of a lost replica's pending entries claimed at once (the idle take-over finds the rest). */
const CLAIM_ALL_PAGES = 100;
/** How long a removal waits for an append to carry it before it goes as a script of its own. */
export const REMOVAL_DELAY_MS = 5;

/** The outbox refused an event: at its entry or byte cap. */
export class OutboxFullError extends Error {}

/** The outbox refused an event: this replica was fenced (a survivor took its tasks over). */
export class OutboxFencedError extends Error {}

/**
 * The Redis commands of one outbox stream and its consumer group, for one replica (the consumer):
 * what {@link RedisEventOutbox} decides, this class says to Redis. Every method may throw on an
 * outage; the outbox counts, logs and retries.
 */
export class RedisOutboxStream {
  private readonly removals: RemovalQueue;

  constructor(
    private readonly client: KitRedisClient,
    private readonly options: ResolvedRedisEventOutboxOptions,
  ) {
    const { stream, bytesKey } = options;
    this.removals = new RemovalQueue(
      (ids) => this.client.rmkOutboxAck([stream, bytesKey], [OUTBOX_GROUP, ...ids]),
      REMOVAL_DELAY_MS,
    );
  }

  /**
   * Appends the event and reads it into this replica's pending list, in one script, under the
   * entry and byte caps; with `task`, the task store's put of the event's task goes in the same
   * script first (one round trip), and `task` is settled with its outcome. The removals waiting
   * (see {@link remove}) go in the same script, first. Returns the entry id.
   * @throws OutboxFullError at a cap; OutboxFencedError once this replica was fenced
   */
  async append(record: OutboxRecord, task?: CarriedTaskWrite): Promise<string> {
    const { stream, bytesKey, replicaId, maxEntries, maxBytes, mac } = this.options;
    const fence = this.options.fence();
    const { event } = record;
    const fields = entryFields(event.event_id, event.task_id, event.seq, record.postedAtMs, record.body);
    const keys = fence ? [stream, bytesKey, fence.key] : [stream, bytesKey];
    const args = [
      OUTBOX_GROUP,
      replicaId,
      String(maxEntries),
      String(maxBytes),
      ...fields,
      mac.sign([stream, ...fields]),
      fence?.epoch ?? '',
    ];
    const removals = this.removals.take();
    if (removals) args.push(...removals.ids);
    let reply: [string, string, number?];
    try {
      reply = (await (task
        ? this.client.rmkTaskWriteAppend([...task.keys, ...keys], [...task.args, ...args])
        : this.client.rmkOutboxAppend(keys, args))) as [string, string, number?];
    } catch (error) {
      removals?.settle(error);
      task?.settle({ error });
      throw error;
    }
    removals?.settle();
    task?.settle(reply[0] === 'fenced' ? 'fenced' : 'written');
    if (reply[0] === 'ok') return reply[1];
    if (reply[0] === 'fenced') {
      throw new OutboxFencedError(
        `event outbox ${stream} refused an event of replica ${replicaId}: it was fenced (a survivor took its tasks over)`,
      );
    }
    const cap = reply[1] === 'entries' ? `maxEntries ${maxEntries}` : `maxBytes ${maxBytes}`;
    throw new OutboxFullError(
      `event outbox ${stream} is full (${cap}): new events are not stored durably until delivered ones are removed (they still go out from memory); raise the cap or fix the receiver`,
    );
  }

  /**
   * Undefined when a read entry carries the MAC of its fields under this stream's key (or entries
   * are not authenticated), else why it is refused: such an entry is never delivered.
   */
  refusalOf(fields: Record<string, string>): Refusal | undefined {
    const { e, t, s, p, b } = fields;
    const signed = [e, t, s, p, b].every((f) => f !== undefined);
    const parts = signed ? [this.options.stream, e!, t!, s!, p!, b!] : [];
    return this.options.mac.check(parts, signed ? fields.m : undefined);
  }

  /**
   * XACK + XDEL of one entry, and its bytes off the counter: carried by the next append script,
   * or sent with the other removals waiting within {@link REMOVAL_DELAY_MS} as one script.
   * Resolves once removed.
   */
  remove(id: string): Promise<void> {
    return this.removals.add(id);
  }

  /** Sends the removals waiting now (on close). */
  flushRemovals(): Promise<void> {
    return this.removals.flush();
  }

  /** Resets the idle time of these pending entries of this replica, in batches. */
  async renew(ids: readonly string[]): Promise<void> {
    const { stream, replicaId } = this.options;
    for (let i = 0; i < ids.length; i += RENEW_BATCH) {
      await this.client.xClaimJustId(stream, OUTBOX_GROUP, replicaId, 0, ids.slice(i, i + RENEW_BATCH));
    }
  }

  /** One XAUTOCLAIM page of entries idle past `claimIdleMs`, from `cursor`; `next` is '0-0' at the end. */
  async claimIdle(cursor: string): Promise<{ entries: StreamEntry[]; next: string }> {
    const { stream, replicaId, claimIdleMs } = this.options;
    const reply = await this.client.xAutoClaim(stream, OUTBOX_GROUP, replicaId, claimIdleMs, cursor, {
      COUNT: CLAIM_PAGE,
    });
    const entries = reply.messages.flatMap((m) => (m ? [{ id: m.id, fields: m.message }] : []));
    return { entries, next: String(reply.nextId) };
  }

  /** One page of this replica's own pending entries after `from` (a former life's, same replicaId). */
  async readOwn(from: string): Promise<StreamEntry[]> {
    const { stream, replicaId } = this.options;
    // raw: a history read answers a deleted entry as [id, nil], which the typed reply does not take
    const args = ['XREADGROUP', 'GROUP', OUTBOX_GROUP, replicaId, 'COUNT', String(CLAIM_PAGE)];
    const reply: unknown = await this.client.sendCommand([...args, 'STREAMS', stream, from]);
    return entriesOf(reply);
  }

  /**
   * Claims for this replica every pending entry of `consumer` (a replica judged lost and fenced: it
   * appends and delivers nothing more), whatever their idle time, in pages.
   */
  async claimAllOf(consumer: string): Promise<StreamEntry[]> {
    const { stream, replicaId } = this.options;
    const claimed: StreamEntry[] = [];
    for (let page = 0; page < CLAIM_ALL_PAGES; page += 1) {
      const pending: unknown = await this.client.sendCommand([
        'XPENDING',
        stream,
        OUTBOX_GROUP,
        '-',
        '+',
        String(CLAIM_PAGE),
        consumer,
      ]);
      const ids = Array.isArray(pending) ? pending.map((p) => String((p as unknown[])[0])) : [];
      if (ids.length === 0) break;
      const reply: unknown = await this.client.sendCommand([
        'XCLAIM',
        stream,
        OUTBOX_GROUP,
        replicaId,
        '0',
        ...ids,
      ]);
      // an entry deleted while pending is answered as nil (older Redis) or left out
      const found = Array.isArray(reply) ? reply.filter((entry) => Array.isArray(entry)) : [];
      claimed.push(...entriesOf([[stream, found]]));
      if (ids.length < CLAIM_PAGE) break;
    }
    return claimed;
  }

  /** Creates the consumer group (and the stream) unless it exists. */
  async createGroup(): Promise<void> {
    try {
      await this.client.xGroupCreate(this.options.stream, OUTBOX_GROUP, '0', { MKSTREAM: true });
    } catch (error) {
      if (!/BUSYGROUP/.test(errorText(error))) throw error;
    }
  }
}
