import { randomUUID } from 'node:crypto';
import { ConfigError, type Logger, TaskFailure } from '@robot-mcp-kit/core';
import { REPLICA_LOST, type StoredTask } from '@robot-mcp-kit/core/store';
import { KIT_ATTRIBUTES, kitInstruments } from '@robot-mcp-kit/core/telemetry';
import { type KitRedisClient } from './redis.scripts.js';
import { type TaskStoreKeys } from './task-store.keys.js';

/** What the lease keeper needs from its store. */
export interface LeaseHost {
  readonly client: KitRedisClient;
  readonly keys: TaskStoreKeys;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly renewEveryMs: number;
  readonly sweepEveryMs: number;
  readonly finishedTtlMs: number;
  readonly logger: Logger;
  /** Reads a task regardless of scope. */
  readRaw(taskId: string): Promise<StoredTask | undefined>;
  /** Writes a lost replica's task this replica took over (no fencing token: the survivor fenced it). */
  put(entry: StoredTask): Promise<void>;
  /** Tells the listeners about a lost task this replica marked failed. */
  lost(failed: StoredTask): Promise<void>;
  /** Counts a failed Redis round (an outage: logged at most every 10 s). */
  outage(what: string, error: unknown): void;
  /** This replica was fenced: a survivor judged it lost and took its tasks over. */
  fenced(epoch: string): void;
}

type Renewal = 'held' | 'taken' | 'fenced';

/**
 * Keeps this replica's lease (`SET lease:<id> PX leaseMs`, renewed every third of it) and sweeps
 * for lost replicas: a replica listed as an owner whose lease key expired has its running tasks
 * marked failed with `REPLICA_LOST`, each claimed with `SET lost:<task> NX` so that exactly one
 * survivor does it (and tells its listeners, which post the `task_failed` event).
 */
export class TaskLease {
  private renewTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;
  /** When this replica's renewals started succeeding again (undefined while they fail). */
  private healthySince: number | undefined;
  /** This process's value of the lease key: another live process under the same replica id has another. */
  private readonly token = randomUUID();
  private warnedTaken = false;
  /** The epoch (fencing token) this replica writes with; '' before the lease was first taken. */
  private heldEpoch = '';
  /** Until when (performance.now(), monotonic: it runs on through a pause) the lease is surely held. */
  private surelyUntil = Number.NEGATIVE_INFINITY;
  private fencedFlag = false;
  /** True while the lease is held: the next successful renewal counts as `renewed`, not `acquired`. */
  private holding = false;
  private confirming: Promise<boolean> | undefined;

  constructor(private readonly host: LeaseHost) {}

  /**
   * Takes the lease and starts renewing and sweeping.
   * @throws ConfigError naming `replicaId` when a live replica holds the lease of this id (with the
   *   time until it can be reused); a Redis error when Redis does not answer
   */
  async start(): Promise<void> {
    if ((await this.renew()) !== 'held') {
      const { client, keys, replicaId } = this.host;
      const leftMs = Math.max(0, await client.pTTL(keys.lease(replicaId)));
      throw new ConfigError(
        'replicaId',
        `"${replicaId}" is in use by a live replica (its lease runs ${leftMs} ms more); give each replica its own id (e.g. the pod name), or, if that replica just stopped, start again after ${leftMs} ms`,
      );
    }
    this.startTimers();
  }

  private startTimers(): void {
    this.renewTimer = setInterval(
      () => void this.renew().catch((e: unknown) => this.renewFailed(e)),
      this.host.renewEveryMs,
    );
    this.sweepTimer = setInterval(() => void this.sweep(), this.host.sweepEveryMs);
    this.renewTimer.unref();
    this.sweepTimer.unref();
  }

  /**
   * Takes the lease again under a new epoch after this replica was fenced (when it had nothing a
   * survivor took over): writes under the old epoch stay refused, new ones carry the new epoch.
   */
  async rejoin(): Promise<void> {
    if (!this.fencedFlag || this.stopped) return;
    this.fencedFlag = false;
    this.heldEpoch = '';
    this.startTimers();
    await this.renew().catch((e: unknown) => this.renewFailed(e));
  }

  /** The epoch this replica's writes carry (its fencing token); '' before start. */
  get epoch(): string {
    return this.heldEpoch;
  }

  /** Whether a survivor fenced this replica. */
  get fenced(): boolean {
    return this.fencedFlag;
  }

  /**
   * Whether this replica still holds its lease: true at once while it surely does (renewed less
   * than a lease ago, on the monotonic clock); otherwise — after a pause, or renewals failing — one
   * renewal decides: false once fenced, true when Redis does not answer (it cannot tell).
   */
  held(): Promise<boolean> {
    if (this.fencedFlag) return Promise.resolve(false);
    if (performance.now() < this.surelyUntil) return Promise.resolve(true);
    this.confirming ??= this.renew()
      .then((renewal) => renewal === 'held')
      .catch((e: unknown) => {
        this.renewFailed(e);
        return !this.fencedFlag;
      })
      .finally(() => {
        this.confirming = undefined;
      });
    return this.confirming;
  }

  private renewFailed(error: unknown): void {
    this.healthySince = undefined;
    this.host.outage('renew the lease', error);
  }

  /** Stops renewing and drops the lease (the replica's finished tasks are already written). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.renewTimer);
    clearInterval(this.sweepTimer);
    await this.sweeping;
    const { client, keys, replicaId } = this.host;
    try {
      if ((await client.sCard(keys.owned(replicaId))) === 0) await client.sRem(keys.replicas(), replicaId);
      await client.rmkLeaseDrop([keys.lease(replicaId)], [this.token]);
      if (this.holding) this.countLease('released');
      this.holding = false;
    } catch (error) {
      this.host.outage('drop the lease', error);
    }
  }

  /** Counts a lease change in `robot_mcp_kit.replica.leases` (OpenTelemetry; a no-op without an SDK). */
  private countLease(change: 'acquired' | 'renewed' | 'lost' | 'released'): void {
    kitInstruments().replicaLeases.add(1, {
      [KIT_ATTRIBUTES.leaseChange]: change,
      [KIT_ATTRIBUTES.replicaId]: this.host.replicaId,
    });
  }

  /** Renews (or takes) the lease: 'taken' when another live process holds this replica id's lease. */
  private async renew(): Promise<Renewal> {
    if (this.fencedFlag) return 'fenced';
    const { client, keys, replicaId, leaseMs, finishedTtlMs } = this.host;
    const sentAt = performance.now();
    const [code, epoch] = (await client.rmkLeaseRenew(
      [keys.lease(replicaId), keys.epoch(replicaId)],
      [this.token, String(leaseMs), this.heldEpoch, String(finishedTtlMs)],
    )) as [number, string];
    if (code === -1) return this.fence(epoch);
    if (code !== 1) {
      if (!this.warnedTaken) {
        this.host.logger.error(
          `replica id ${replicaId} is in use by another live replica: this one cannot renew its lease`,
          { replica: replicaId },
        );
      }
      this.warnedTaken = true;
      return 'taken';
    }
    this.warnedTaken = false;
    this.countLease(this.holding ? 'renewed' : 'acquired');
    this.holding = true;
    this.heldEpoch = epoch;
    this.surelyUntil = sentAt + leaseMs;
    await client.sAdd(keys.replicas(), replicaId);
    this.healthySince ??= Date.now();
    return 'held';
  }

  /** A survivor raised this replica's epoch: fenced until {@link rejoin} (told once). */
  private fence(epoch: string): Renewal {
    if (this.fencedFlag) return 'fenced';
    this.fencedFlag = true;
    this.countLease('lost');
    this.holding = false;
    this.healthySince = undefined;
    this.surelyUntil = Number.NEGATIVE_INFINITY;
    clearInterval(this.renewTimer);
    clearInterval(this.sweepTimer);
    this.host.fenced(epoch);
    return 'fenced';
  }

  /**
   * Sweeps only after this replica's own renewals have succeeded for a whole lease: after a Redis
   * outage every lease has expired, and the live replicas need that long to renew theirs before a
   * missing lease means a lost replica.
   */
  mayJudge(): boolean {
    return this.healthySince !== undefined && Date.now() - this.healthySince >= this.host.leaseMs;
  }

  /** One round of the sweeper (never overlapping, never throwing). */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.host.outage('sweep for lost replicas', error))
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    if (!this.mayJudge()) return;
    const { client, keys, replicaId } = this.host;
    for (const replica of await client.sMembers(keys.replicas())) {
      if (this.stopped) return;
      if (replica === replicaId || !(await this.fenceIfLost(replica))) continue;
      const owned = await client.sMembers(keys.owned(replica));
      for (const taskId of owned) await this.failLost(replica, taskId);
      if ((await client.sCard(keys.owned(replica))) === 0) await client.sRem(keys.replicas(), replica);
    }
  }

  /** Fences `replica` when its lease expired (its later writes are refused); false while it is alive. */
  private async fenceIfLost(replica: string): Promise<boolean> {
    const { client, keys, finishedTtlMs } = this.host;
    const fenced = await client.rmkLeaseFence(
      [keys.lease(replica), keys.epoch(replica)],
      [String(finishedTtlMs)],
    );
    return fenced === 1;
  }

  /** Claims one task of a lost replica; the winner marks it failed and tells its listeners. */
  private async failLost(replica: string, taskId: string): Promise<void> {
    const { client, keys, finishedTtlMs, logger } = this.host;
    const won = await client.set(keys.lostClaim(taskId), this.host.replicaId, {
      condition: 'NX',
      expiration: { type: 'PX', value: finishedTtlMs },
    });
    if (won !== 'OK') return;
    try {
      const entry = await this.host.readRaw(taskId);
      if (!entry || entry.task.state !== 'running' || entry.owner !== replica) {
        await client.sRem(keys.owned(replica), taskId);
        return;
      }
      const failed = lostTask(entry);
      await this.host.put(failed);
      logger.warn(`task ${taskId} failed: its replica ${replica} was lost`, {
        task_id: taskId,
        lost: replica,
      });
      await this.host.lost(failed);
    } catch (error) {
      // A claim whose work failed (a timeout under load, an outage) is released, so that a later
      // sweep (of any survivor) fails the task instead of leaving it running until the claim expires.
      await client.del(keys.lostClaim(taskId)).catch(() => undefined);
      throw error;
    }
  }
}

/** The entry of a task whose replica was lost, marked failed with {@link REPLICA_LOST}. */
export function lostTask(entry: StoredTask): StoredTask {
  const failure = TaskFailure.create({
    error_code: REPLICA_LOST,
    message:
      `the server replica running this task (${entry.owner}) stopped answering before the task ended, ` +
      'so its outcome is unknown; check the robot state and start the task again if needed',
    recoverable: true,
    suggestions: ['check the robot state before starting the task again'],
  });
  return {
    ...entry,
    lastSeq: entry.lastSeq + 1,
    task: { ...entry.task, state: 'failed', updated_at: new Date().toISOString(), failure: failure.toJSON() },
  };
}
