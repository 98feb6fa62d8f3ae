import {
  type EventPoster,
  type Logger,
  parseTaskInfo,
  type TaskEvent,
  type TaskInfo,
  type TaskInfoJson,
  type TaskManager,
  systemClock,
} from '@robot-mcp-kit/core';
import { type TaskChange } from '@robot-mcp-kit/core/host';
import {
  ANONYMOUS_SCOPE,
  type EstopListener,
  type StoredTask,
  type TaskStore,
} from '@robot-mcp-kit/core/store';
import { pollUntil, waitAtMost } from '@robot-mcp-kit/core/support';
import { wireActuatorLeases } from './actuator-leases.js';
import { StoreTaskIds } from './task-ids.reserver.js';
import { mayAccess, scopeOf } from '../auth/task-owners.js';
import { type TaskStarter } from '../tools/task-starter.js';
import { SEQ_STORED_WAIT_MS } from './store-outbox.js';
import { type CarriedAppend, TaskWriteQueue } from './task-store.writes.js';
import { postLostTask, stopFencedTasks } from './task-store.takeover.js';

/** How long close() waits for the last writes (cancelled tasks) before it gives up. */
const CLOSE_FLUSH_MS = 3000;
/** How long a start waits for its task to be stored before it answers anyway (store outage). */
const START_WRITE_WAIT_MS = 5000;
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
  private readonly writes: TaskWriteQueue;
  private readonly scopes = new Map<string, string>();
  private readonly seqs = new Map<string, number>();
  private readonly stops: (() => void)[] = [];
  private readonly remoteListeners = new Set<(taskId: string) => void>();
  private readonly estopListeners = new Set<EstopListener>();
  /** Failures other than state writes (handles, id reservations); the queue counts its own. */
  private failedOther = 0;
  /** This store's id reservations (while connected); clashes of earlier connections are kept. */
  private ids: StoreTaskIds | undefined;
  private pastClashes = 0;

  constructor(private readonly parts: TaskStoreBridgeParts) {
    this.writes = new TaskWriteQueue(() => this.store, parts.logger);
  }

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
    return this.writes.failures + this.failedOther + (this.ids?.unreserved ?? 0);
  }

  /** Task ids drawn here that another replica had reserved already (each drawn again). */
  get idClashes(): number {
    return this.pastClashes + (this.ids?.clashes ?? 0);
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
      store.onLostTask((failed) => postLostTask(this.parts, failed)),
    );
    if (store.onFenced) {
      const connected = () => this.store === store;
      this.stops.push(store.onFenced(() => void stopFencedTasks(this.parts, this.writes, store, connected)));
    }
    if (store.onTaskChange) this.stops.push(store.onTaskChange((taskId) => this.remoteChanged(taskId)));
    if (store.onEstop) this.stops.push(store.onEstop((latch) => this.estopLatched(latch)));
    this.stops.push(wireActuatorLeases({ taskManager, starter, store, logger: this.parts.logger }));
    starter.setStartBarrier((info) => this.startWritten(info.task_id));
    if (store.reserveId) {
      const ids = new StoreTaskIds(store, () => taskManager.newTaskId(), this.parts.logger);
      this.ids = ids;
      starter.setIdReserver(ids);
    }
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
    await this.seqStored(event.task_id, event.seq, SEQ_STORED_WAIT_MS);
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
    return this.writes.carryAppend(taskId, append);
  }

  /**
   * Resolves once the task's state with `seq` (or a later one) reached the store, or after `waitMs`
   * (under a store outage events still go on; the write keeps being retried). The outbox waits on it
   * before an append that carries no state, the delivery gate before each send.
   */
  async seqStored(taskId: string, seq: number, waitMs: number): Promise<void> {
    await Promise.resolve(); // the TaskManager notifies its listeners right after posting the event
    await this.writes.seqStored(taskId, seq, waitMs);
  }

  /**
   * The start barrier: waits for the task's first write, at most `START_WRITE_WAIT_MS` (5 s) (under
   * a store outage the task_id is still answered — the write keeps being retried — and a warning says so).
   */
  private async startWritten(taskId: string): Promise<void> {
    const inTime = await this.writes.seqStored(taskId, 0, START_WRITE_WAIT_MS);
    if (!inTime) {
      this.parts.logger.warn('task store unreachable: answering the start before the task is stored', {
        task_id: taskId,
      });
    }
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
      this.failedOther += 1;
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
    const store = this.store;
    await store.requestCancel(entry);
    let last = entry;
    const ended = async (): Promise<true | undefined> => {
      last = (await store.get(entry.scope, entry.task.task_id)) ?? last;
      return last.task.state === 'running' ? undefined : true;
    };
    await pollUntil(ended, { clock: systemClock, withinMs: waitMs, pauses: 50, pauseFirst: true });
    return last;
  }

  /** Writes what is pending (bounded wait) and closes the store. */
  async close(): Promise<void> {
    const store = this.store;
    if (!store) return;
    await this.writes.settled(undefined, CLOSE_FLUSH_MS);
    for (const stop of this.stops.splice(0)) stop();
    this.parts.starter.setIdReserver(undefined);
    const ids = this.ids;
    this.ids = undefined;
    if (ids) {
      this.pastClashes += ids.clashes;
      this.failedOther += ids.unreserved;
      await ids.close();
    }
    this.store = undefined;
    await store.close();
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
    this.writes.schedule(entry, store);
  }
}
