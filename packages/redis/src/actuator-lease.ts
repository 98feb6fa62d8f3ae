import { type ActuatorClaim } from '@robot-mcp-kit/core/store';
import { type Logger } from '@robot-mcp-kit/core';
import { type KitRedisClient } from './redis.scripts.js';
import { type StoreContentsMac } from './store-contents.mac.js';
import { type TaskStoreKeys } from './task-store.keys.js';

/** What the actuator leases need from their store. */
export interface ActuatorLeaseHost {
  readonly client: KitRedisClient;
  readonly keys: TaskStoreKeys;
  readonly mac: StoreContentsMac;
  readonly replicaId: string;
  readonly logger: Logger;
  /** The epoch (fencing token) this replica holds; '' before its lease was taken. */
  epoch(): string;
  /** Whether this replica may judge another lost (its own renewals succeeded for a whole lease). */
  mayJudge(): boolean;
  /** Counts a holder record without a valid MAC (ignored: it holds nothing). */
  refused(key: string): void;
  /** The error a write is refused with once this replica was fenced. */
  fencedError(what: string): Error;
}

/** A slot's holder as its record says (sealed with the store MAC). */
interface Holder {
  readonly task_id: string;
  readonly replica: string;
  readonly epoch: string;
}

/** How often a start reads the slots again when racing replicas changed them meanwhile. */
const MAX_READS = 5;

/** One slot of an actuator as read before taking it. */
interface Slot {
  readonly actuator: string;
  readonly key: string;
  readonly value: string | null;
  readonly holder: Holder | undefined;
}

/**
 * One lease per actuator slot across every replica sharing the store (`actuator:<name>:<slot>`):
 * the record names the holder task, its replica and that replica's epoch, sealed with the store
 * MAC. A slot is free when it is empty, its record is not authentic (Redis write access cannot
 * forge a holder), or its holder replica lost its lease (kill -9: taken over once it expired; the
 * lost replica is fenced, so a paused holder stops its bodies on its next renewal). Released when
 * the task ends.
 */
export class ActuatorLeases {
  /** What each slot this replica holds says, by the slot's key. */
  private readonly held = new Map<string, { actuator: string; taskId: string; record: string }>();

  constructor(
    private readonly host: ActuatorLeaseHost,
    private readonly epochRetentionMs: number,
  ) {}

  /** Takes a free slot; a slot changed since it was read (a racing replica) is read again. */
  async acquire(actuator: string, slots: number, taskId: string): Promise<ActuatorClaim> {
    const keys = Array.from({ length: slots }, (_, slot) => this.host.keys.actuator(actuator, slot));
    let holders: Holder[] = [];
    for (let attempt = 0; attempt < MAX_READS; attempt += 1) {
      const values = await this.host.client.mGet(keys);
      holders = [];
      let changed = false;
      for (const [slot, key] of keys.entries()) {
        const value = values[slot] ?? null;
        const holder = value === null ? undefined : this.open(key, value);
        const reply = await this.take({ actuator, key, value, holder }, taskId);
        if (reply === 'taken') return { taken: true };
        if (reply === 'changed') changed = true;
        else if (holder) holders.push(holder);
      }
      if (!changed) break;
    }
    return { taken: false, holders: holders.map(({ task_id, replica }) => ({ task_id, replica })) };
  }

  private async take(slot: Slot, taskId: string): Promise<'taken' | 'held' | 'changed'> {
    const { actuator, key, value, holder } = slot;
    const { client, keys, mac, replicaId } = this.host;
    const epoch = this.host.epoch();
    const json = JSON.stringify({ task_id: taskId, replica: replicaId, epoch });
    const record = mac.sealRecord(key, json);
    const reply = await client.rmkActuatorTake(
      [
        key,
        keys.epoch(replicaId),
        keys.lease(holder?.replica ?? replicaId),
        keys.epoch(holder?.replica ?? replicaId),
      ],
      [
        record,
        value ?? '',
        value !== null && (!holder || this.stale(key, holder)) ? '1' : '0',
        epoch,
        holder?.epoch ?? '',
        String(this.epochRetentionMs),
        this.host.mayJudge() ? '1' : '0',
      ],
    );
    if (reply === -1) throw this.host.fencedError(`the actuator lease ${key}`);
    if (reply === 2) return 'changed';
    if (reply !== 1) return 'held';
    if (holder && holder.replica !== replicaId) {
      this.host.logger.warn('actuator lease taken over from a lost replica', {
        actuator: key,
        lost: holder.replica,
        task_id: holder.task_id,
      });
    }
    this.held.set(key, { actuator, taskId, record });
    return 'taken';
  }

  async release(actuator: string, taskId: string): Promise<void> {
    for (const [key, held] of this.held) {
      if (held.taskId !== taskId || held.actuator !== actuator) continue;
      this.held.delete(key);
      await this.host.client.rmkActuatorRelease([key], [held.record]);
    }
  }

  /**
   * Whether a slot names a task of this replica that holds it no more (its release was lost to a
   * Redis outage): this replica knows its own holders.
   */
  private stale(key: string, holder: Holder): boolean {
    return holder.replica === this.host.replicaId && this.held.get(key)?.taskId !== holder.task_id;
  }

  /** The holder a slot's record names when its MAC is valid; otherwise undefined (counted). */
  private open(key: string, value: string): Holder | undefined {
    const opened = this.host.mac.openRecord(key, value);
    if ('json' in opened) {
      try {
        const holder = JSON.parse(opened.json) as Holder;
        if (typeof holder.task_id === 'string' && typeof holder.replica === 'string') return holder;
      } catch {
        // unreadable: holds nothing
      }
    }
    this.host.refused(key);
    return undefined;
  }
}
