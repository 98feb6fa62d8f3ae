import {
  type EventPoster,
  type JsonObject,
  type Logger,
  parseTaskInfo,
  RobotMcpKitError,
  TaskEvent,
  type TaskInfo,
  type TaskInfoJson,
  type TaskManager,
  systemClock,
} from '@robot-mcp-kit/core';
import { type TaskChange } from '@robot-mcp-kit/core/host';
import {
  ANONYMOUS_SCOPE,
  type CarriedTaskWrite,
  type EstopListener,
  REPLICA_FENCED,
  type StoredTask,
  type TaskStore,
} from '@robot-mcp-kit/core/store';
import { Backoff, waitAtMost } from '@robot-mcp-kit/core/support';
import { randomUUID } from 'node:crypto';
import { wireActuatorLeases } from './actuator-leases.js';
import { TaskIdPool } from './task-ids.pool.js';
import { mayAccess, scopeOf } from '../auth/task-owners.js';
import { type TaskStarter } from '../tools/task-starter.js';
import { SEQ_STORED_WAIT_MS } from './store-outbox.js';

/** First pause before a failed store write is retried; doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;
/** How long close() waits for the last writes (cancelled tasks) before it gives up. */
const CLOSE_FLUSH_MS = 3000;
/** How long a start waits for its task to be stored before it answers anyway (store outage). */
const START_WRITE_WAIT_MS = 5000;
/** How long close() waits for the reservations of unused ids to be released (Redis may be down). */
const RELEASE_IDS_WAIT_MS = 1000;
/** How long an id's reservation lasts when the store does not say (its finished-task retention). */
const DEFAULT_RESERVATION_MS = 60_000;

/** The newest state of one task still to be written, and whether a write is under way. */
interface PendingWrite {
  next: StoredTask | undefined;
  /** Outbox appends of the task waiting their turn; the first carries `next` (one script). */
  appends: CarriedAppend[];
  running: Promise<void> | undefined;
  retry: Backoff;
  /** A write failed and waits for its retry: appends meanwhile go out at once, carrying nothing. */
  failing: boolean;
}

/** An outbox append run in its task's write order, given the write it carries (if any). */
type CarriedAppend = (write: CarriedTaskWrite | undefined) => Promise<void>;

/** What the bridge is wired to. */
export interface TaskStoreBridgeParts {
  readonly taskManager: TaskManager;
  readonly starter: TaskStarter;
  readonly poster: EventPoster;
  readonly serverName: string;
  readonly logger: Logger;
  /** Connects the store (at listen time; fails fast when it is unreachable). */
  readonly open: () => Promise<TaskStore>;
  /** Takes over a lost replica's pending events into the poster now (the durable outbox), if any. */
  readonly takeOverFrom?: (replicaId: string) => Promise<void>;
}

/**
 * Feeds a {@link TaskStore} from the TaskManager's observer (started / event / finished, with
 * TaskInfo snapshots) and answers for the tasks of other replicas. Writes of a task are ordered
 * and coalesced (at most one in flight and the newest pending, so memory is one entry per task);
 * a failed write is logged, counted and retried with a growing pause, never thrown.
 */
export class TaskStoreBridge {
  private store: TaskStore | undefined;
  private readonly writes = new Map<string, PendingWrite>();
  private readonly scopes = new Map<string, string>();
  private readonly seqs = new Map<string, number>();
  private readonly stops: (() => void)[] = [];
  private readonly remoteListeners = new Set<(taskId: string) => void>();
  private readonly estopListeners = new Set<EstopListener>();
  private failedWrites = 0;
  private clashes = 0;
  private idPool: TaskIdPool | undefined;

  constructor(private readonly parts: TaskStoreBridgeParts) {}

  /** The shared store once connected (the features that keep state of their own in it read it here). */
  get shared(): TaskStore | undefined {
    return this.store;
  }

  /** Whether the store is connected (after the app listened). */
  get active(): boolean {
    return this.store !== undefined;
  }

  /** Store writes that failed (each retried). */
  get writeErrors(): number {
    return this.failedWrites;
  }

  /** Task ids drawn here that another replica had reserved already (each drawn again). */
  get idClashes(): number {
    return this.clashes;
  }

  /** Connects the store and starts feeding it; cancel requests of other replicas cancel local tasks. */
  async start(): Promise<void> {
    if (this.store) return;
    const store = await this.parts.open();
    this.store = store;
    const { taskManager, starter } = this.parts;
    this.stops.push(
      taskManager.onChange((change) => this.changed(change)),
      store.onCancelRequest((taskId) => void taskManager.cancel(taskId)),
      store.onLostTask((failed) => this.postLost(failed)),
    );
    if (store.onFenced) this.stops.push(store.onFenced(() => void this.fenced(store)));
    if (store.onTaskChange) this.stops.push(store.onTaskChange((taskId) => this.remoteChanged(taskId)));
    if (store.onEstop) this.stops.push(store.onEstop((latch) => this.estopLatched(latch)));
    this.stops.push(wireActuatorLeases({ taskManager, starter, store, logger: this.parts.logger }));
    starter.setStartBarrier((info) => this.startWritten(info.task_id));
    if (store.reserveId) starter.setIdReserver(() => this.reserveId());
    this.parts.logger.info('task store connected', { replica: store.replicaId });
  }

  /**
   * Observes the changes of tasks this replica does not run (written by another replica), for
   * `tasks://` subscriptions. Returns the function that stops it.
   */
  onRemoteChange(listener: (taskId: string) => void): () => void {
    this.remoteListeners.add(listener);
    return () => void this.remoteListeners.delete(listener);
  }

  /**
   * Observes every latch of the e-stop by any replica sharing the store (this one's own included),
   * so that each replica stops its movers. Returns the function that stops it.
   */
  onEstop(listener: EstopListener): () => void {
    this.estopListeners.add(listener);
    return () => void this.estopListeners.delete(listener);
  }

  private estopLatched(latch: Parameters<EstopListener>[0]): void {
    for (const listener of this.estopListeners) {
      try {
        listener(latch);
      } catch (error) {
        this.parts.logger.error('an e-stop listener threw', { error: String(error) });
      }
    }
  }

  private remoteChanged(taskId: string): void {
    if (this.parts.taskManager.get(taskId)) return; // this replica's own: its observers saw it
    for (const listener of this.remoteListeners) {
      try {
        listener(taskId);
      } catch (error) {
        this.parts.logger.error('a task change listener threw', { task_id: taskId, error: String(error) });
      }
    }
  }

  /**
   * Whether this replica still owns its tasks (the poster's delivery gate): true without a store
   * or a store without leases; see `TaskStore.leaseHeld`.
   */
  leaseHeld(): Promise<boolean> {
    return this.store?.leaseHeld?.() ?? Promise.resolve(true);
  }

  /**
   * The poster's delivery gate: waits (bounded) until the event's seq is stored — a survivor that
   * fails the task then numbers its failure after it, never beside it — and says whether this
   * replica still owns its tasks.
   */
  async mayDeliver(event: TaskEvent): Promise<boolean> {
    await this.seqStored(event.task_id, SEQ_STORED_WAIT_MS);
    return this.leaseHeld();
  }

  /** @internal The fencing token of this replica's outbox appends (`TaskStore.fencingToken`), if any. */
  fencingToken(): { key: string; epoch: string } | undefined {
    return this.store?.fencingToken?.();
  }

  /**
   * @internal Runs an outbox append of `taskId` in the task's write order, carrying the task's newest
   * unwritten state: one script, one round trip, writes the state (with the event's seq) and
   * appends the event. Appends wait behind a write under way of the same task, then go together
   * (pipelined on one connection, the first carrying the state). Called by the outbox as the event
   * is posted, before the TaskManager tells the bridge of it, which then joins the write. Undefined
   * when the store cannot carry its writes or holds no fencing token yet (the outbox then appends
   * once the seq is stored).
   */
  carryAppend(taskId: string, append: CarriedAppend): Promise<void> | undefined {
    const store = this.store;
    if (!store?.carriedWrite || !store.fencingToken?.()) return undefined;
    const pending = this.pendingOf(taskId);
    if (pending.failing) return append(undefined); // an outage: as before, no wait on the state
    return new Promise<void>((resolve, reject) => {
      pending.appends.push((write) => append(write).then(resolve, reject));
      // the event's state is scheduled right after this (same tick); a relayed one has none
      queueMicrotask(() => {
        if (!pending.running && this.writes.get(taskId) === pending) {
          pending.running = this.drain(taskId, pending, store);
        }
      });
    });
  }

  /**
   * This replica was fenced (paused or cut off past its lease; a survivor failed its tasks
   * `REPLICA_LOST` and took over their pending events). Its running tasks' bodies are stopped
   * through the cancel path (their AbortSignal fires; no event), what they still write is refused by
   * Redis under the old epoch, every event the poster still holds is relinquished to the survivor
   * (left in the outbox, not sent), and then it takes a new lease under a new epoch and goes on:
   * new tasks run, the old ones stay failed `REPLICA_LOST`. The store logged why.
   */
  private async fenced(store: TaskStore): Promise<void> {
    const { taskManager, poster, logger } = this.parts;
    const running = taskManager.list(['running']).map((t) => t.task_id);
    if (running.length > 0) {
      logger.error(
        `stopping ${running.length} running tasks: this replica no longer owns them (a survivor failed them REPLICA_LOST)`,
        { task_ids: running },
      );
      await Promise.allSettled(running.map((id) => taskManager.cancel(id, { settle: true })));
      // their last writes (refused under the old epoch) before a new epoch exists
      await this.settledWrites(running, CLOSE_FLUSH_MS);
      // the survivor's outcome (failed REPLICA_LOST, in the store) is the answer here too
      for (const id of running) taskManager.forget(id);
    }
    poster.relinquish();
    if (!store.rejoin || this.store !== store) return;
    logger.warn(
      running.length > 0
        ? 'their bodies stopped: taking a new lease and going on'
        : 'no task was running: taking a new lease and going on',
    );
    await store.rejoin();
  }

  /** Resolves once each task's writes settled, or after `waitMs`. */
  private async settledWrites(taskIds: readonly string[], waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    await Promise.race([Promise.all(taskIds.map((id) => this.whenWritten(id))), late]);
    clearTimeout(timer);
  }

  /** Resolves once the task's current state reached the store (at once when there is no store). */
  async whenWritten(taskId: string): Promise<void> {
    for (let pending = this.writes.get(taskId); pending?.running; pending = this.writes.get(taskId)) {
      await pending.running;
    }
  }

  /**
   * Resolves once the task's newest seq reached the store, or after `waitMs` (under a store outage
   * events still go on; the write keeps being retried). The outbox waits on it before each append.
   */
  async seqStored(taskId: string, waitMs: number): Promise<void> {
    await Promise.resolve(); // the TaskManager notifies its listeners right after posting the event
    if (!this.writes.has(taskId)) return;
    await waitAtMost(this.whenWritten(taskId), systemClock, waitMs);
  }

  /**
   * The start barrier: waits for the task's first write, at most `START_WRITE_WAIT_MS` (5 s) (under
   * a store outage the task_id is still answered — the write keeps being retried — and a warning says so).
   */
  private async startWritten(taskId: string): Promise<void> {
    const inTime = await waitAtMost(this.whenWritten(taskId), systemClock, START_WRITE_WAIT_MS);
    if (!inTime) {
      this.parts.logger.warn('task store unreachable: answering the start before the task is stored', {
        task_id: taskId,
      });
    }
  }

  /**
   * A new task id reserved in the store (ids are unique across replicas for as long as the store
   * keeps the task), from a {@link TaskIdPool} reserved ahead: a start waits for its record's write
   * only. Under a store outage the id is used unreserved (logged; its start write is retried as usual).
   * @throws RobotMcpKitError TASK_ID_EXHAUSTED after `MAX_ID_ATTEMPTS` clashes in a row
   */
  private async reserveId(): Promise<string> {
    const { taskManager, logger } = this.parts;
    const store = this.store;
    if (!store?.reserveId) return taskManager.newTaskId();
    this.idPool ??= this.poolOf(store);
    try {
      return await this.idPool.take();
    } catch (error) {
      if (error instanceof RobotMcpKitError && error.code === 'TASK_ID_EXHAUSTED') throw error;
      const id = taskManager.newTaskId();
      this.failedWrites += 1;
      logger.warn('task store unreachable: a task id is used without its reservation', {
        task_id: id,
        error: error instanceof Error ? error.message : String(error),
      });
      return id;
    }
  }

  private poolOf(store: TaskStore): TaskIdPool {
    const { taskManager, logger } = this.parts;
    return new TaskIdPool({
      draw: () => taskManager.newTaskId(),
      reserve: (id) => store.reserveId?.(id) ?? Promise.resolve(true),
      reservationMs: store.idReservationMs ?? DEFAULT_RESERVATION_MS,
      clashed: (id) => {
        this.clashes += 1;
        logger.debug('task id taken by another replica; drawing another', {
          task_id: id,
          clashes: this.clashes,
        });
      },
    });
  }

  /** A stored task `scope` may see (`mayAccess` its record's scope), or undefined. */
  async get(scope: string, taskId: string): Promise<StoredTask | undefined> {
    const entry = this.store ? await this.store.get(scope, taskId) : undefined;
    return entry && mayAccess(scope, entry.scope) ? entry : undefined;
  }

  /**
   * Records another name of a task (a SEP-2663 handle) in the store, so every replica finds the
   * task by it. Waits at most `START_WRITE_WAIT_MS` (5 s); a failure is logged and counted (the
   * creating replica still answers for the handle).
   */
  async putAlias(alias: string, taskId: string, ttlMs: number): Promise<void> {
    const store = this.store;
    if (!store) return;
    const written = store.putAlias(alias, taskId, ttlMs).catch((error: unknown) => {
      this.failedWrites += 1;
      this.parts.logger.warn('task store: could not record a task handle; other replicas will not find it', {
        task_id: taskId,
        error: error instanceof Error ? error.message : String(error),
      });
    });
    await waitAtMost(written, systemClock, START_WRITE_WAIT_MS);
  }

  /** The task an alias names, if it is a task of `scope`. */
  async getByAlias(scope: string, alias: string): Promise<StoredTask | undefined> {
    const taskId = this.store ? await this.store.getAlias(alias) : undefined;
    return taskId === undefined ? undefined : this.get(scope, taskId);
  }

  /**
   * The tasks `scope` may see: this replica's that `allows` (the one rule, `TaskOwners.allows`) and
   * the stored ones of `scope`, in creation order (a stored task that cannot be read is left out,
   * with a warning). A task of this replica it does not allow (a relayed task of a lost replica) is
   * read from the store, whose record names its scope.
   */
  async tasksOf(scope: string, allows: (taskId: string) => boolean): Promise<TaskInfo[]> {
    const { taskManager, logger } = this.parts;
    const local = taskManager.list().filter((t) => allows(t.task_id));
    const known = new Set(local.map((t) => t.task_id));
    const all = [...local];
    for (const entry of await this.list(scope)) {
      if (known.has(entry.task.task_id)) continue;
      try {
        all.push(parseTaskInfo(JSON.stringify(entry.task)));
      } catch (error) {
        logger.warn('a stored task could not be read; left out', {
          task_id: entry.task.task_id,
          error: String(error),
        });
      }
    }
    return all.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  }

  /** The stored tasks of every replica `scope` may see (`mayAccess`). */
  async list(scope: string): Promise<StoredTask[]> {
    const entries = this.store ? await this.store.list(scope) : [];
    return entries.filter((entry) => mayAccess(scope, entry.scope));
  }

  /**
   * Asks the owner of a remote running task to cancel it and waits up to `waitMs` for the store to
   * show it ended; resolves with the task as last read.
   */
  async cancelRemote(entry: StoredTask, waitMs: number): Promise<StoredTask> {
    if (!this.store || entry.task.state !== 'running') return entry;
    await this.store.requestCancel(entry);
    const deadline = Date.now() + waitMs;
    let last = entry;
    while (last.task.state === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      last = (await this.store.get(entry.scope, entry.task.task_id)) ?? last;
    }
    return last;
  }

  /** Writes what is pending (bounded wait) and closes the store. */
  async close(): Promise<void> {
    const store = this.store;
    if (!store) return;
    const flushed = Promise.all([...this.writes.keys()].map((id) => this.whenWritten(id)));
    await waitAtMost(flushed, systemClock, CLOSE_FLUSH_MS);
    for (const stop of this.stops.splice(0)) stop();
    this.parts.starter.setIdReserver(undefined);
    const pool = this.idPool;
    this.idPool = undefined;
    if (pool) await waitAtMost(this.releaseUnused(pool, store), systemClock, RELEASE_IDS_WAIT_MS);
    this.store = undefined;
    await store.close();
  }

  /**
   * Releases the reservations of the ids the pool holds unused (`TaskStore.releaseIds`, one round
   * trip), so they do not stay taken until they expire; a failure is logged, never thrown.
   */
  private async releaseUnused(pool: TaskIdPool, store: TaskStore): Promise<void> {
    const unused = await pool.close();
    if (unused.length === 0 || !store.releaseIds) return;
    try {
      const released = await store.releaseIds(unused);
      this.parts.logger.debug('released the reservations of unused task ids', { released });
    } catch (error) {
      this.parts.logger.warn('task store: could not release unused task id reservations; they expire', {
        ids: unused.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private changed(change: TaskChange): void {
    if (change.relayed) return; // another replica's task: its record is the store's already
    if (change.event) this.seqs.set(change.taskId, change.event.seq);
    // the scope of a task is its starter's principal, from the origin on `started`
    if (change.kind === 'started') this.scopes.set(change.taskId, scopeOf(change.origin?.principal));
    this.schedule(change.taskId, change.task.toJSON());
    if (change.kind !== 'finished') return;
    const { taskId } = change;
    const bodyRunning = change.task.body_running === true;
    // a cancelled task's body may still run (body_running): write again once it stopped
    void this.parts.taskManager.whenStopped(taskId).then(() => {
      const info = this.parts.taskManager.get(taskId);
      if (info && bodyRunning) this.schedule(taskId, info.toJSON());
      this.scopes.delete(taskId);
      this.seqs.delete(taskId);
    });
  }

  private schedule(taskId: string, task: TaskInfoJson): void {
    const store = this.store;
    if (!store) return;
    const entry: StoredTask = {
      scope: this.scopes.get(taskId) ?? ANONYMOUS_SCOPE,
      owner: store.replicaId,
      lastSeq: this.seqs.get(taskId) ?? 0,
      task,
    };
    const pending = this.pendingOf(taskId);
    pending.next = entry;
    if (!pending.running) pending.running = this.drain(taskId, pending, store);
  }

  private pendingOf(taskId: string): PendingWrite {
    let pending = this.writes.get(taskId);
    if (!pending) {
      pending = {
        next: undefined,
        appends: [],
        running: undefined,
        retry: new Backoff(FIRST_RETRY_MS, MAX_RETRY_MS),
        failing: false,
      };
      this.writes.set(taskId, pending);
    }
    return pending;
  }

  /**
   * Writes the newest pending state, with the appends waiting (see `carryAppend`), until none
   * is left; retries a failed write after a pause.
   */
  private async drain(taskId: string, pending: PendingWrite, store: TaskStore): Promise<void> {
    while (pending.next || pending.appends.length > 0) {
      const entry = pending.next;
      pending.next = undefined;
      try {
        await this.writeWith(store, entry, pending.appends.splice(0));
        pending.retry.reset();
      } catch (error) {
        if (error instanceof RobotMcpKitError && error.code === REPLICA_FENCED) {
          this.parts.logger.warn(error.message, { task_id: taskId }); // refused for good: not retried
          break;
        }
        this.failedWrites += 1;
        pending.next ??= entry;
        this.parts.logger.warn('task store write failed; retrying', {
          task_id: taskId,
          retry_ms: pending.retry.currentMs,
          write_errors: this.failedWrites,
          error: error instanceof Error ? error.message : String(error),
        });
        const pause = pending.retry.next();
        pending.failing = true;
        for (const append of pending.appends.splice(0)) void append(undefined);
        await new Promise((resolve) => setTimeout(resolve, pause).unref());
        pending.failing = false;
        if (this.store !== store) break;
      }
    }
    // refused for good (fenced) or closed: what still waits goes out carrying nothing
    for (const append of pending.appends.splice(0)) void append(undefined);
    pending.running = undefined;
    if (this.writes.get(taskId) === pending && !pending.next) this.writes.delete(taskId);
  }

  /**
   * Writes `entry` (if any) and runs `appends` in order: the first carries the write in its script
   * (all sent at once, on the outbox's one connection, so Redis runs them in this order), else a
   * plain put. Rejects when the write failed or was refused (fenced).
   */
  private async writeWith(
    store: TaskStore,
    entry: StoredTask | undefined,
    appends: readonly CarriedAppend[],
  ): Promise<void> {
    if (appends.length === 0 || !entry || !store.carriedWrite) {
      try {
        if (entry) await store.put(entry);
      } finally {
        await Promise.allSettled(appends.map((append) => append(undefined)));
      }
      return;
    }
    const write = store.carriedWrite(entry);
    await Promise.allSettled(appends.map((append, i) => append(i === 0 ? write : undefined)));
    // an append that never reached Redis (the outbox closed): the write failed, retried as a put
    write.settle({ error: new Error('the outbox append carrying the task write did not run') });
    await write.done;
  }

  /**
   * Posts the `task_failed` of a lost replica's task, as the next event of that task, through the
   * TaskManager's relay: this replica's observers (event feed, resource subscriptions) see it too.
   */
  private async postLost(failed: StoredTask): Promise<void> {
    try {
      // the lost owner's pending events of the task go into the poster's queue first
      await this.parts.takeOverFrom?.(failed.owner);
    } catch (error) {
      this.parts.logger.warn("could not take over a lost replica's events before its task's failure", {
        task_id: failed.task.task_id,
        lost: failed.owner,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    const { task } = failed;
    const event = TaskEvent.create({
      event_id: randomUUID(),
      task_id: task.task_id,
      server: this.parts.serverName,
      tool: task.tool,
      type: 'task_failed',
      seq: failed.lastSeq,
      ts: new Date(),
      payload: (task.failure ?? {}) as unknown as JsonObject,
    });
    let info: TaskInfo;
    try {
      info = parseTaskInfo(JSON.stringify(task));
    } catch {
      this.parts.poster.post(event); // a record this version cannot read: delivered, not observed
      return;
    }
    const written = this.parts.taskManager.relay(event, info);
    written?.catch((error: unknown) =>
      this.parts.logger.error('could not write the relayed task_failed of a lost replica', {
        task_id: task.task_id,
        error: String(error),
      }),
    );
  }
}
