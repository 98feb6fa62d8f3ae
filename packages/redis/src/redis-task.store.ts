import { RobotMcpKitError } from '@robot-mcp-kit/core';
import {
  type ActuatorClaim,
  type CancelRequestListener,
  type CarriedOutcome,
  type CarriedTaskWrite,
  type EstopListener,
  REPLICA_FENCED,
  type EstopLatch,
  type LostTaskListener,
  type CancelTarget,
  type StoredTask,
  type TaskStore,
} from '@robot-mcp-kit/core/store';
import { errorText } from './redis-connection.js';
import { type KitRedisClient } from './redis.scripts.js';
import {
  type RedisTaskStoreOptions,
  type ResolvedRedisTaskStoreOptions,
  resolveRedisTaskStoreOptions,
} from './redis-task-store.options.js';
import { ActuatorLeases } from './actuator-lease.js';
import { TaskLease } from './task-lease.js';
import { TaskStoreKeys } from './task-store.keys.js';
import { RELEASE_IDS_SCRIPT } from './task-store.scripts.js';
import { LogThrottle } from './log-throttle.js';
import { type Refusal } from './store-contents.mac.js';

/** Counters of a {@link RedisTaskStore}, this replica only. */
export interface RedisTaskStoreStats {
  readonly puts: number;
  /** Redis rounds that failed (outage, timeout); each is logged at most every 10 s. */
  readonly errors: number;
  readonly cancelRequestsSent: number;
  readonly cancelRequestsReceived: number;
  /** Cancel requests without a valid MAC (published straight into Redis): ignored, never acted upon. */
  readonly cancelRequestsRefused: number;
  /** Tasks of lost replicas this replica marked failed. */
  readonly lostTasksFailed: number;
  /** Records read without a valid MAC (forged through Redis, or from before store MACs): ignored. */
  readonly refusedUnauthentic: number;
  /** Writes of this replica refused because it was fenced (a survivor took its tasks over). */
  readonly refusedFenced: number;
}

/**
 * The Redis adapter of the {@link TaskStore} port. A task is `task:<id>` (the StoredTask JSON; a
 * finished one expires after `finishedTtlS`), indexed in `scope:<scope>` (ZSET by creation time)
 * and, while running, in `owned:<replica>`. Each replica holds a lease it renews; cancel requests
 * go to the owner over pub/sub (`cancel:<replica>`); a sweeper on every replica fails the running
 * tasks of a replica whose lease expired, exactly once across survivors (see `TaskLease` in task-lease.ts).
 */
export class RedisTaskStore implements TaskStore {
  readonly replicaId: string;
  /** @internal the key layout (tests read Redis with it) */
  readonly keys: TaskStoreKeys;
  private readonly options: ResolvedRedisTaskStoreOptions;
  private readonly lease: TaskLease;
  private readonly cancelListeners = new Set<CancelRequestListener>();
  private readonly lostListeners = new Set<LostTaskListener>();
  private readonly fencedListeners = new Set<() => void>();
  private readonly changeListeners = new Set<(taskId: string) => void>();
  private readonly estopListeners = new Set<EstopListener>();
  private readonly actuators: ActuatorLeases;
  private readonly counts = {
    puts: 0,
    errors: 0,
    cancelRequestsSent: 0,
    cancelRequestsReceived: 0,
    lostTasksFailed: 0,
    refusedUnauthentic: 0,
    refusedFenced: 0,
    cancelRequestsRefused: 0,
  };
  /** Outages, refused records and refused cancel requests: each kind logged at most every 10 s. */
  private readonly throttle = new LogThrottle();
  private closing: Promise<void> | undefined;

  /**
   * @param client a connected client for commands; @param subscriber a connected client of its own
   *   for the cancel channel (`client.duplicate()`); @param ownsClients whether close() closes them.
   */
  constructor(
    private readonly client: KitRedisClient,
    private readonly subscriber: KitRedisClient,
    options: RedisTaskStoreOptions = {},
    private readonly ownsClients = false,
  ) {
    this.options = resolveRedisTaskStoreOptions(options);
    this.replicaId = this.options.replicaId;
    this.keys = new TaskStoreKeys(this.options.keyPrefix);
    this.lease = new TaskLease({
      client,
      keys: this.keys,
      replicaId: this.replicaId,
      leaseMs: this.options.leaseMs,
      renewEveryMs: this.options.renewEveryMs,
      sweepEveryMs: this.options.sweepEveryMs,
      finishedTtlMs: this.options.finishedTtlMs,
      logger: this.options.logger,
      readRaw: (taskId) => this.readRaw(taskId),
      put: (entry) => this.write(entry, ''),
      lost: (failed) => this.tellLost(failed),
      outage: (what, error) => this.outage(what, error),
      fenced: (epoch) => this.tellFenced(epoch),
    });
    this.actuators = new ActuatorLeases(
      {
        client,
        keys: this.keys,
        mac: this.options.mac,
        replicaId: this.replicaId,
        logger: this.options.logger,
        epoch: () => this.lease.epoch,
        mayJudge: () => this.lease.mayJudge(),
        refused: (key) => this.refused(key, 'forged'),
        fencedError: (what) => this.refusedAsFenced(what),
      },
      this.options.finishedTtlMs,
    );
  }

  /** Subscribes to this replica's cancel channel and takes the lease; call once before use. */
  async start(): Promise<void> {
    const channel = this.keys.cancelChannel(this.replicaId);
    await this.subscriber.subscribe(channel, (message: string) => {
      const taskId = this.openCancel(channel, message);
      if (taskId === undefined) return;
      this.counts.cancelRequestsReceived += 1;
      for (const listener of this.cancelListeners) listener(taskId);
    });
    await this.subscriber.subscribe(this.keys.changesChannel(), (taskId: string) => {
      for (const listener of this.changeListeners) listener(taskId);
    });
    const estopChannel = this.keys.estopChannel();
    await this.subscriber.subscribe(estopChannel, (message: string) => {
      const latch = this.openEstop(estopChannel, message);
      if (latch) for (const listener of this.estopListeners) listener(latch);
    });
    await this.lease.start();
  }

  /** Observes every task write of any replica (its task id; this replica's own included). */
  onTaskChange(listener: (taskId: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => void this.changeListeners.delete(listener);
  }

  stats(): RedisTaskStoreStats {
    return { ...this.counts };
  }

  /** @throws RobotMcpKitError {@link REPLICA_FENCED} once this replica was fenced (nothing written) */
  put(entry: StoredTask): Promise<void> {
    return this.write(entry, entry.owner === this.replicaId ? this.lease.epoch : '');
  }

  private async write(entry: StoredTask, epoch: string): Promise<void> {
    const { keys, args } = this.writeCall(entry, epoch);
    const reply = await this.round('write a task', () => this.client.rmkTaskPut([...keys], [...args]));
    if (reply === -1) throw this.refusedAsFenced(`a write of task ${entry.task.task_id}`);
    this.counts.puts += 1;
  }

  /**
   * The put of `entry` (this replica's own task) for an outbox append to carry in its
   * script — one round trip for the state and the event (`RedisEventOutbox.append(record, write)`);
   * `done` resolves once written, rejects with {@link REPLICA_FENCED} once fenced or with the outage.
   */
  carriedWrite(entry: StoredTask): CarriedTaskWrite {
    const { keys, args } = this.writeCall(entry, entry.owner === this.replicaId ? this.lease.epoch : '');
    let settled = false;
    let settle: (outcome: CarriedOutcome) => void = () => undefined;
    const done = new Promise<void>((resolve, reject) => {
      settle = (outcome) => {
        if (settled) return;
        settled = true;
        if (outcome === 'written') {
          this.counts.puts += 1;
          resolve();
        } else if (outcome === 'fenced') {
          reject(this.refusedAsFenced(`a write of task ${entry.task.task_id}`));
        } else {
          this.outage('write a task', outcome.error);
          reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)));
        }
      };
    });
    done.catch(() => undefined); // awaited by the caller; never an unhandled rejection here
    return { keys, args, done, settle: (outcome) => settle(outcome) };
  }

  /** The keys and arguments of the put script for `entry` under `epoch` ('' for a survivor's write). */
  private writeCall(entry: StoredTask, epoch: string): { keys: string[]; args: string[] } {
    const { task } = entry;
    const finished = task.state !== 'running';
    return {
      keys: [
        this.keys.task(task.task_id),
        this.keys.scope(entry.scope),
        this.keys.owned(entry.owner),
        this.keys.taskId(task.task_id),
        this.keys.epoch(entry.owner),
      ],
      args: [
        this.options.mac.sealRecord(this.keys.task(task.task_id), JSON.stringify(entry)),
        finished ? String(this.options.finishedTtlMs) : '0',
        task.state,
        String(Date.parse(task.created_at)),
        task.task_id,
        entry.owner,
        epoch,
        this.keys.changesChannel(),
      ],
    };
  }

  /** The fencing token of this replica's outbox appends: its epoch key and the epoch it holds. */
  fencingToken(): { key: string; epoch: string } | undefined {
    const { epoch } = this.lease;
    return epoch === '' ? undefined : { key: this.keys.epoch(this.replicaId), epoch };
  }

  leaseHeld(): Promise<boolean> {
    return this.lease.held();
  }

  rejoin(): Promise<void> {
    return this.lease.rejoin();
  }

  onFenced(listener: () => void): () => void {
    this.fencedListeners.add(listener);
    return () => void this.fencedListeners.delete(listener);
  }

  private refusedAsFenced(what: string): RobotMcpKitError {
    this.counts.refusedFenced += 1;
    return new RobotMcpKitError(
      REPLICA_FENCED,
      `task store refused ${what}: replica ${this.replicaId} was fenced (a survivor took its tasks over)`,
    );
  }

  private tellFenced(epoch: string): void {
    this.options.logger.error(
      `replica ${this.replicaId} lost its lease: it was paused or cut off from Redis for longer than the lease and a survivor took its tasks over; the store refuses its writes under that lease`,
      { replica: this.replicaId, epoch },
    );
    for (const listener of this.fencedListeners) {
      try {
        listener();
      } catch (error) {
        this.options.logger.error('a fenced listener threw', { error: errorText(error) });
      }
    }
  }

  /** How long a reservation of {@link reserveId} lasts unless a task write keeps it (`finishedTtlS`). */
  get idReservationMs(): number {
    return this.options.finishedTtlMs;
  }

  /**
   * `SET id:<taskId> NX` for the finished-task retention (the first write of the task keeps it for
   * as long as the task is kept): true for exactly one replica.
   */
  async reserveId(taskId: string): Promise<boolean> {
    const reply = await this.round('reserve a task id', () =>
      this.client.set(this.keys.taskId(taskId), this.replicaId, {
        condition: 'NX',
        expiration: { type: 'PX', value: this.options.finishedTtlMs },
      }),
    );
    return reply === 'OK';
  }

  /**
   * Releases reservations of ids this replica reserved ahead and left unused, in one script and one
   * round trip: an `id:<id>` is deleted only while it names this replica and no `task:<id>` exists.
   * Sent as `EVAL` with its text (once per close: an `EVALSHA` would cost a second round trip
   * whenever Redis does not hold the script yet).
   */
  async releaseIds(taskIds: readonly string[]): Promise<number> {
    if (taskIds.length === 0) return 0;
    const keys = taskIds.flatMap((id) => [this.keys.taskId(id), this.keys.task(id)]);
    const reply = await this.round('release reserved task ids', () =>
      this.client.eval(RELEASE_IDS_SCRIPT, { keys, arguments: [this.replicaId] }),
    );
    return Number(reply);
  }

  async putAlias(alias: string, taskId: string, ttlMs: number): Promise<void> {
    const px = Math.max(1, Math.round(ttlMs));
    await this.round('write a task alias', () =>
      this.client.set(this.keys.alias(alias), taskId, { expiration: { type: 'PX', value: px } }),
    );
  }

  async getAlias(alias: string): Promise<string | undefined> {
    const taskId = await this.round('read a task alias', () => this.client.get(this.keys.alias(alias)));
    return taskId ?? undefined;
  }

  async get(scope: string, taskId: string): Promise<StoredTask | undefined> {
    const entry = await this.readRaw(taskId);
    return entry?.scope === scope ? entry : undefined;
  }

  async list(scope: string): Promise<StoredTask[]> {
    const key = this.keys.scope(scope);
    const ids = await this.round('list tasks', () => this.client.zRange(key, 0, -1));
    if (ids.length === 0) return [];
    const values = await this.round('list tasks', () =>
      this.client.mGet(ids.map((id) => this.keys.task(id))),
    );
    const out: StoredTask[] = [];
    const gone: string[] = [];
    values.forEach((value, i) => {
      const entry = value === null ? undefined : this.opened(ids[i]!, value);
      if (entry?.scope === scope) out.push(entry);
      else gone.push(ids[i]!);
    });
    // expired tasks leave the index lazily, here
    if (gone.length > 0) await this.round('trim the task index', () => this.client.zRem(key, gone));
    return out;
  }

  async requestCancel(entry: CancelTarget): Promise<void> {
    const channel = this.keys.cancelChannel(entry.owner);
    const taskId = entry.task.task_id;
    const { mac } = this.options;
    // `<task id> <MAC>`, the MAC bound to the channel (so to the owner and the deployment prefix)
    const message = mac.enabled ? `${taskId} ${mac.sign(['cancel', channel, taskId])}` : taskId;
    await this.round('send a cancel request', () => this.client.publish(channel, message));
    this.counts.cancelRequestsSent += 1;
  }

  onCancelRequest(listener: CancelRequestListener): () => void {
    this.cancelListeners.add(listener);
    return () => void this.cancelListeners.delete(listener);
  }

  onLostTask(listener: LostTaskListener): () => void {
    this.lostListeners.add(listener);
    return () => void this.lostListeners.delete(listener);
  }

  /** Runs one sweep for lost replicas now (tests; the sweeper runs on its own every `sweepEveryMs`). */
  sweep(): Promise<void> {
    return this.lease.sweep();
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    await this.lease.stop();
    this.cancelListeners.clear();
    this.lostListeners.clear();
    this.fencedListeners.clear();
    this.changeListeners.clear();
    this.estopListeners.clear();
    if (!this.ownsClients) return;
    await Promise.allSettled([this.subscriber.close(), this.client.close()]);
  }

  private async readRaw(taskId: string): Promise<StoredTask | undefined> {
    const value = await this.round('read a task', () => this.client.get(this.keys.task(taskId)));
    return value === null ? undefined : this.opened(taskId, value);
  }

  /** The e-stop latch; a value without a valid MAC reads as latched (logged), never as released. */
  async readEstop(): Promise<EstopLatch | undefined> {
    const key = this.keys.estop();
    const value = await this.client.get(key);
    if (value === null) return undefined;
    const opened = this.options.mac.openRecord(key, value);
    if ('json' in opened) return JSON.parse(opened.json) as EstopLatch;
    this.refused('estop', opened.refused);
    return { latched: true, by: 'unauthenticated-record', at: new Date().toISOString() };
  }

  /**
   * Sets or releases the e-stop latch, sealed with the store MAC; a latch is also announced on the
   * e-stop channel (`<latch JSON> <MAC>`, the MAC bound to the channel), so that every replica
   * stops its movers at once.
   */
  async writeEstop(latch: EstopLatch): Promise<void> {
    const key = this.keys.estop();
    const json = JSON.stringify({ latched: latch.latched, by: latch.by, at: latch.at });
    await this.client.set(key, this.options.mac.sealRecord(key, json));
    if (!latch.latched) return;
    const channel = this.keys.estopChannel();
    await this.client.publish(channel, `${json} ${this.options.mac.sign(['estop', channel, json])}`);
  }

  onEstop(listener: EstopListener): () => void {
    this.estopListeners.add(listener);
    return () => void this.estopListeners.delete(listener);
  }

  /**
   * The latch announced on the e-stop channel when its MAC is valid; an unauthentic one is still a
   * stop (stopping is always safe; logged), never anything else.
   */
  private openEstop(channel: string, message: string): EstopLatch | undefined {
    const space = message.lastIndexOf(' ');
    const json = space < 0 ? message : message.slice(0, space);
    const refused = this.options.mac.check(['estop', channel, json], message.slice(space + 1));
    if (refused !== undefined) {
      this.refused('estop-latched', refused);
      return { latched: true, by: 'unauthenticated-record', at: new Date().toISOString() };
    }
    try {
      const latch = JSON.parse(json) as EstopLatch;
      return latch.latched === true ? latch : undefined;
    } catch {
      return undefined;
    }
  }

  acquireActuator(actuator: string, slots: number, taskId: string): Promise<ActuatorClaim> {
    return this.round('take an actuator lease', () => this.actuators.acquire(actuator, slots, taskId));
  }

  releaseActuator(actuator: string, taskId: string): Promise<void> {
    return this.round('release an actuator lease', () => this.actuators.release(actuator, taskId));
  }

  /**
   * The record read from `task:<taskId>` when its MAC is valid (or records are not authenticated);
   * otherwise undefined — never answered, never failed as `REPLICA_LOST` — counted and logged.
   */
  private opened(taskId: string, value: string): StoredTask | undefined {
    const opened = this.options.mac.openRecord(this.keys.task(taskId), value);
    if ('json' in opened) return parseEntry(opened.json);
    this.refused(taskId, opened.refused);
    return undefined;
  }

  /**
   * The task id of a cancel request received on `channel` when its MAC is valid (or requests are
   * not authenticated); otherwise undefined — never acted upon — counted and logged.
   */
  private openCancel(channel: string, message: string): string | undefined {
    const { mac } = this.options;
    if (!mac.enabled) return message;
    const space = message.lastIndexOf(' ');
    const taskId = space < 0 ? message : message.slice(0, space);
    const refused = mac.check(['cancel', channel, taskId], space < 0 ? undefined : message.slice(space + 1));
    if (refused === undefined) return taskId;
    this.counts.cancelRequestsRefused += 1;
    if (!this.throttle.due('cancel-refusal')) return undefined;
    this.options.logger.error(
      'cancel request without a valid MAC (not sent by a replica with the event secret); ignored',
      { task_id: taskId, reason: refused, refused_so_far: this.counts.cancelRequestsRefused },
    );
    return undefined;
  }

  private refused(taskId: string, reason: Refusal): void {
    this.counts.refusedUnauthentic += 1;
    if (!this.throttle.due('record-refusal')) return;
    this.options.logger.error(
      'task record without a valid MAC (not written by a replica with the event secret); ignored',
      { task_id: taskId, reason, refused_so_far: this.counts.refusedUnauthentic },
    );
  }

  private async tellLost(failed: StoredTask): Promise<void> {
    this.counts.lostTasksFailed += 1;
    for (const listener of this.lostListeners) {
      try {
        await listener(failed);
      } catch (error) {
        this.options.logger.error('a lost-task listener threw', {
          task_id: failed.task.task_id,
          error: errorText(error),
        });
      }
    }
  }

  /** Runs one Redis round; a failure is counted, logged (at most every 10 s) and rethrown. */
  private async round<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.outage(what, error);
      throw error;
    }
  }

  private outage(what: string, error: unknown): void {
    this.counts.errors += 1;
    if (!this.throttle.due('outage')) return;
    this.options.logger.warn(`Redis did not answer (${what}); retrying`, {
      error: errorText(error),
      errors: this.counts.errors,
    });
  }
}

function parseEntry(value: string): StoredTask | undefined {
  try {
    const entry = JSON.parse(value) as StoredTask;
    return typeof entry?.task?.task_id === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}
