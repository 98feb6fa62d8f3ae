import { type Logger, type TaskInfo, type TaskManager } from '@robot-mcp-kit/core';
import { type TaskChange } from '@robot-mcp-kit/core/host';

/** Owners of finished tasks remembered, at most this many (oldest forgotten first). */
export const MAX_FINISHED_OWNERS = 10_000;

/** A change of a task another replica runs (the task store's change channel, `RMK_STORE`). */
export interface RemoteChange {
  readonly kind: 'remote';
  readonly taskId: string;
}

/** What a surface that pushes (resources, the 2026 `tasks://` publisher, native tasks) is told. */
export type ProjectedChange = TaskChange | RemoteChange;

export type ProjectionListener = (change: ProjectedChange) => void;

/** A source of other replicas' task changes: the store bridge (`TaskStoreBridge.onRemoteChange`). */
export interface RemoteChangeSource {
  onRemoteChange(listener: (taskId: string) => void): () => void;
}

/** What the projection holds of one task of this replica: who started it, and when it last changed. */
export interface ProjectedTask {
  readonly taskId: string;
  /** The session it came in on (undefined when started without one). */
  readonly sessionId: string | undefined;
  /** That session's principal, if it authenticated. */
  readonly principal: string | undefined;
  /** Whether it reached a terminal state. */
  readonly finished: boolean;
  /** The clock's time of its last change (start, event or end), for TTL and clean-up. */
  readonly changedAt: number;
}

/** Filters of {@link TaskProjection.list}; every given one must match. */
export interface ProjectionFilter {
  readonly sessionId?: string;
  readonly principal?: string;
  readonly status?: 'running' | 'finished';
}

interface Entry {
  sessionId: string | undefined;
  principal: string | undefined;
  finished: boolean;
  changedAt: number;
}

/** The parts of a TaskManager the projection reads. */
export type ProjectionSource = Pick<TaskManager, 'onChange' | 'get'> &
  Partial<Pick<TaskManager, 'clock' | 'logger'>>;

/**
 * The one read model of a TaskManager's tasks that every surface queries (task owners, the
 * scoping of get_task/list_tasks/`tasks://`, native tasks, resources, the 2026 publisher): the only
 * subscriber to the manager's change channel (besides the store bridge and the actuator leases), and
 * the one subscriber per store to its remote changes. It holds, per task started with an origin,
 * its owner (session, principal) and last-change time; the TaskInfo itself is the manager's
 * ({@link info}). Memory is bounded in this one place: an owner without a principal is forgotten when
 * its task ends (only a principal is read after the end, by the scope checks); the owners of the last
 * 10,000 (`MAX_FINISHED_OWNERS`) finished tasks are kept, a ring.
 *
 * One per app: created once where the app is composed (`bootstrap`, beside its TaskManager) and
 * handed to every surface that reads it (`FeatureContext.projection`, the task owners), never looked
 * up. It listens while anything holds it or listens to it, so closing the last surface leaves the
 * manager with no listener of it.
 */
export class TaskProjection {
  private readonly entries = new Map<string, Entry>();
  /** The finished tasks with an owner kept, a ring: the slot about to be reused holds the oldest. */
  private readonly finishedRing: (string | undefined)[] = [];
  private nextSlot = 0;
  private readonly listeners = new Set<ProjectionListener>();
  private readonly remotes = new Map<RemoteChangeSource, RemoteFeed>();
  private holds = 0;
  private stopLocal: (() => void) | undefined;

  /** The projection of `manager`'s tasks; it subscribes to the manager on its first hold. */
  constructor(private readonly manager: ProjectionSource) {}

  /** Keeps the projection listening (task owners are recorded); returns the function that releases it. */
  hold(): () => void {
    this.holds += 1;
    if (this.holds === 1) this.stopLocal = this.manager.onChange((change) => this.changed(change));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds -= 1;
      if (this.holds === 0) {
        this.stopLocal?.();
        this.stopLocal = undefined;
      }
    };
  }

  /**
   * Tells `listener` every change of this replica's tasks, after the projection recorded it, and,
   * with `remote`, every change of other replicas' tasks that source reports (one subscription per
   * source, however many surfaces listen). A throwing listener is logged; the others are still told.
   * Returns the function that stops it.
   */
  subscribe(listener: ProjectionListener, remote?: RemoteChangeSource): () => void {
    const release = this.hold();
    this.listeners.add(listener);
    const feed = remote && this.remoteFeed(remote);
    feed?.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (feed) {
        feed.listeners.delete(listener);
        if (feed.listeners.size === 0) {
          feed.stop();
          this.remotes.delete(remote!);
        }
      }
      release();
    };
  }

  /** The projected task, if the projection holds it (started here with an origin, not yet forgotten). */
  get(taskId: string): ProjectedTask | undefined {
    const entry = this.entries.get(taskId);
    return entry && { taskId, ...entry };
  }

  /** The live TaskInfo of one of this replica's tasks (the manager's; undefined once it evicted it). */
  info(taskId: string): TaskInfo | undefined {
    return this.manager.get(taskId);
  }

  /** The projected tasks matching `filter`, in start order. */
  list(filter: ProjectionFilter = {}): ProjectedTask[] {
    const found: ProjectedTask[] = [];
    for (const [taskId, entry] of this.entries) {
      if (filter.sessionId !== undefined && entry.sessionId !== filter.sessionId) continue;
      if (filter.principal !== undefined && entry.principal !== filter.principal) continue;
      if (filter.status !== undefined && entry.finished !== (filter.status === 'finished')) continue;
      found.push({ taskId, ...entry });
    }
    return found;
  }

  /** How many tasks the projection holds. */
  get size(): number {
    return this.entries.size;
  }

  private changed(change: TaskChange): void {
    this.record(change);
    this.tell(change, this.listeners);
  }

  private record(change: TaskChange): void {
    const { taskId } = change;
    if (change.kind === 'started') {
      const { sessionId, principal } = change.origin ?? {};
      if (sessionId === undefined && principal === undefined) return;
      this.entries.set(taskId, { sessionId, principal, finished: false, changedAt: this.now() });
      return;
    }
    const entry = this.entries.get(taskId);
    if (!entry || entry.finished) return;
    entry.changedAt = this.now();
    if (change.kind !== 'finished') return;
    if (entry.principal === undefined) {
      this.entries.delete(taskId); // only a principal is read after the end (scope checks)
      return;
    }
    entry.finished = true;
    const oldest = this.finishedRing[this.nextSlot];
    if (oldest !== undefined) this.entries.delete(oldest);
    this.finishedRing[this.nextSlot] = taskId;
    this.nextSlot = (this.nextSlot + 1) % MAX_FINISHED_OWNERS;
  }

  private remoteFeed(remote: RemoteChangeSource): RemoteFeed {
    let feed = this.remotes.get(remote);
    if (!feed) {
      const listeners = new Set<ProjectionListener>();
      const stop = remote.onRemoteChange((taskId) => this.tell({ kind: 'remote', taskId }, listeners));
      feed = { listeners, stop };
      this.remotes.set(remote, feed);
    }
    return feed;
  }

  private tell(change: ProjectedChange, listeners: ReadonlySet<ProjectionListener>): void {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger()?.error(`a task change listener threw on ${change.kind} of task ${change.taskId}`, {
          task_id: change.taskId,
          error: error instanceof Error ? error.message : String(error),
          stack: error instanceof Error ? error.stack : undefined,
        });
      }
    }
  }

  private now(): number {
    return this.manager.clock?.now() ?? Date.now();
  }

  private logger(): Logger | undefined {
    return this.manager.logger;
  }
}

interface RemoteFeed {
  readonly listeners: Set<ProjectionListener>;
  readonly stop: () => void;
}
