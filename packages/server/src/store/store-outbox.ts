import { randomUUID } from 'node:crypto';
import { type Logger } from '@robot-mcp-kit/core';
import { redactUrlCredentials } from '@robot-mcp-kit/core/rules';
import { type CarriedTaskWrite, type EventOutbox, type OutboxRecord } from '@robot-mcp-kit/core/store';
import type * as RedisPackage from '@robot-mcp-kit/redis/server';
import { givenReplicaId, loadRedisPackage, type TaskStoreSettings } from './task-store.config.js';

/** How long an event's outbox write waits for the task store to hold its seq (then it goes on, warned). */
export const SEQ_STORED_WAIT_MS = 2000;

/**
 * This replica's one id in the task store and the outbox (so that a survivor finds a lost
 * replica's pending events by the owner its tasks name): the settings' `replicaId`, else
 * `RMK_REPLICA_ID`, else a random UUID per process.
 */
export function replicaIdFrom(settings: TaskStoreSettings, env: NodeJS.ProcessEnv): string {
  return settings.replicaId ?? givenReplicaId(env) ?? randomUUID();
}

/** What the outbox needs from the task store bridge: "this event's seq is stored". */
export interface SeqStore {
  seqStored(taskId: string, seq: number, waitMs: number): Promise<void>;
  /** The fencing token appends carry (the Redis task store's epoch), once the store is open. */
  fencingToken(): { key: string; epoch: string } | undefined;
  /**
   * Runs `append` in its task's write order, handing it the task's state write to carry in the same
   * script (the bridge's `carryAppend`); undefined when the store cannot carry its writes.
   */
  carryAppend(
    taskId: string,
    append: (write: CarriedTaskWrite | undefined) => Promise<void>,
  ): Promise<void> | undefined;
}

/**
 * The durable event outbox that comes with a Redis task store (`RMK_STORE`): the Redis Streams
 * outbox of `@robot-mcp-kit/redis`, loaded on first use (the poster's `open()`), so a server
 * without a store never loads the package. Before an event is appended, the task store is given
 * (bounded) time to hold the event's seq: a survivor that marks the task `REPLICA_LOST` numbers its
 * `task_failed` after every event that was durably written, never beside one of them.
 *
 * Delivery waits for the seq too (the poster's delivery gate, `TaskStoreBridge.mayDeliver`), not
 * for the append: an event may be delivered (and acknowledged) before its append reached the
 * Redis outbox. Such an ack waits for the append, so the entry is removed once it is
 * written instead of staying in the stream for good.
 */
export class StoreEventOutbox implements EventOutbox {
  readonly description: string;
  private loaded: Promise<RedisPackage.RedisEventOutbox> | undefined;
  /** The appends under way, by event_id (settled, never rejecting): what an early ack waits for. */
  private readonly appending = new Map<string, Promise<void>>();

  constructor(
    private readonly settings: TaskStoreSettings,
    private readonly deps: {
      serverName: string;
      replicaId: string;
      seqs: SeqStore;
      logger: Logger;
    },
  ) {
    this.description = `${redactUrlCredentials(settings.url)} outbox of ${deps.serverName}`;
  }

  async append(record: OutboxRecord): Promise<void> {
    const eventId = record.event.event_id;
    const written = this.appendOnceSeqStored(record);
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    this.appending.set(eventId, settled);
    try {
      await written;
    } finally {
      if (this.appending.get(eventId) === settled) this.appending.delete(eventId);
    }
  }

  async ack(eventId: string): Promise<void> {
    await this.appending.get(eventId); // delivered before it was written: remove it once written
    await (await this.outbox()).ack(eventId);
  }

  relinquish(): void {
    void this.loaded?.then(
      (outbox) => outbox.relinquish(),
      () => undefined,
    );
  }

  async start(deliver: (records: readonly OutboxRecord[]) => void): Promise<void> {
    await (await this.outbox()).start(deliver);
  }

  /**
   * Takes over the pending events of a replica judged lost, at once, into this replica's poster
   * (see `RedisEventOutbox.takeOverFrom`): the `REPLICA_LOST` failure posted next follows them.
   */
  async takeOverFrom(replicaId: string): Promise<void> {
    await (await this.outbox()).takeOverFrom(replicaId);
  }

  async close(): Promise<void> {
    if (this.loaded) await (await this.loaded).close();
  }

  /**
   * Appends in the task's write order carrying its state write (one script, one round trip) when
   * the store allows it; otherwise once the task store holds the event's seq (bounded wait), as a
   * second round trip.
   */
  private appendOnceSeqStored(record: OutboxRecord): Promise<void> {
    const carried = this.deps.seqs.carryAppend(record.event.task_id, async (write) => {
      let outbox: RedisPackage.RedisEventOutbox;
      try {
        outbox = await this.outbox();
      } catch (error) {
        write?.settle({ error });
        throw error;
      }
      await outbox.append(record, write);
    });
    return carried ?? this.appendAfterSeq(record);
  }

  private async appendAfterSeq(record: OutboxRecord): Promise<void> {
    await this.deps.seqs.seqStored(record.event.task_id, record.event.seq, SEQ_STORED_WAIT_MS);
    await (await this.outbox()).append(record);
  }

  private outbox(): Promise<RedisPackage.RedisEventOutbox> {
    this.loaded ??= loadRedisPackage().then((redis) =>
      redis.redisEventOutbox({
        url: this.settings.url,
        serverName: this.deps.serverName,
        replicaId: this.deps.replicaId,
        // a replica silent for a lease is gone: its tasks fail REPLICA_LOST, its events move on
        ...(this.settings.leaseMs !== undefined ? { claimIdleMs: this.settings.leaseMs } : {}),
        ...(this.settings.keyPrefix !== undefined ? { keyPrefix: `${this.settings.keyPrefix}outbox:` } : {}),
        ...(this.settings.secret !== undefined ? { secret: this.settings.secret } : {}),
        fence: () => this.deps.seqs.fencingToken(),
        logger: this.deps.logger,
      }),
    );
    return this.loaded;
  }
}
