import { type Clock, type Logger } from '@robot-mcp-kit/core';
import { type SurfaceNotifier } from '../../surface/session-surface.port.js';
import { RUNNING_TASKS_URI, taskUri } from '../../task-views/task-resources.catalog.js';
import { type RemoteChangeSource, type TaskProjection } from '../../task-views/task-projection.js';
import { UpdateCoalescer } from '../../task-views/update-coalescer.js';

/** The coalescer key of `notifications/resources/list_changed` (not a URI: no `://`). */
const LIST_KEY = 'list';

/**
 * The changes of tasks another replica runs (`TaskStoreBridge.onRemoteChange`: the store's change
 * channel). Returns the function that stops it.
 */
export type RemoteTaskChanges = (listener: (taskId: string) => void) => () => void;

/**
 * Announces task changes to every attached notification target, of either generation:
 * `notifications/resources/updated` of `tasks://<task_id>` and `tasks://running` to the targets that
 * follow the URI (a 2025 session that subscribed; every 2026-07-28 target, where the v2 SDK filters
 * per listen stream), and `notifications/resources/list_changed` to every target when a task starts
 * or finishes (a `tasks://` resource appears, changes its listed title, or an old finished one is
 * evicted). Updates are coalesced per URI: at most one per interval, the last change always
 * announced. With `remote` (a task store), other replicas' changes are announced the same way.
 */
export class TaskChangePublisher {
  private readonly targets = new Set<SurfaceNotifier>();
  private readonly coalescer: UpdateCoalescer;
  private readonly stop: () => void;

  constructor(
    /** The app's task projection: this replica's changes. */
    projection: TaskProjection,
    clock: Clock,
    intervalMs: number,
    private readonly logger: Logger,
    remote?: RemoteTaskChanges | RemoteChangeSource,
  ) {
    this.coalescer = new UpdateCoalescer(intervalMs, clock, (key) => this.announce(key));
    const source = typeof remote === 'function' ? { onRemoteChange: remote } : remote;
    this.stop = projection.subscribe((change) => {
      if (this.targets.size === 0) return;
      this.touch(taskUri(change.taskId));
      this.touch(RUNNING_TASKS_URI);
      if (change.kind === 'started' || change.kind === 'finished') this.coalescer.touch(LIST_KEY);
    }, source);
  }

  /** Announces changes to `target` until the returned function is called. */
  attach(target: SurfaceNotifier): () => void {
    this.targets.add(target);
    return () => void this.targets.delete(target);
  }

  close(): void {
    this.stop();
    this.coalescer.close();
    this.targets.clear();
  }

  /** Opens or extends the URI's window only when a target follows it. */
  private touch(uri: string): void {
    for (const target of this.targets) {
      if (target.follows(uri)) {
        this.coalescer.touch(uri);
        return;
      }
    }
  }

  private announce(key: string): void {
    for (const target of this.targets) {
      try {
        if (key === LIST_KEY) target.resourcesListChanged();
        else if (target.follows(key)) target.resourceUpdated(key);
      } catch (err) {
        this.logger.debug('could not announce a task change', { key, error: String(err) });
      }
    }
  }
}
