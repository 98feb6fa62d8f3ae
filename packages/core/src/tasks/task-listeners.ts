import { type Logger } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type TaskInfo } from '../models/task-info.model.js';
import { TaskArgumentError } from './task.error.js';
import { describeValue, errorMessage } from './task-json.util.js';
import { type TaskRecord } from './task-record.js';
import { type TaskChange, type TaskListener, type TaskOrigin } from './task.types.js';

/** The observers of a TaskManager's task changes; a throwing observer is logged, never propagated. */
export class TaskListeners {
  private readonly listeners = new Set<TaskListener>();

  constructor(private readonly logger: Logger) {}

  /** Adds an observer; returns the function that removes it. */
  add(listener: TaskListener): () => void {
    if (typeof listener !== 'function') {
      throw new TaskArgumentError(
        'listener',
        `expected a function (change) => void, got ${describeValue(listener)}`,
      );
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Tells every observer about a change of `record`; the snapshot is built on first access. */
  notify(
    kind: TaskChange['kind'],
    record: TaskRecord,
    event?: TaskEvent,
    origin?: TaskOrigin,
    built?: TaskInfo,
  ): void {
    if (this.listeners.size === 0) return;
    const change = new RecordChange(kind, record, event, origin, built);
    this.tell(change);
  }

  /** Tells every observer about an event of a task another replica ran ({@link TaskChange.relayed}). */
  notifyRelayed(event: TaskEvent, task: TaskInfo): void {
    if (this.listeners.size === 0) return;
    this.tell({ kind: 'event', taskId: task.task_id, state: task.state, task, event, relayed: true });
  }

  private tell(change: TaskChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error(`a task change listener threw on ${change.kind} of task ${change.taskId}`, {
          task_id: change.taskId,
          error: errorMessage(error),
          stack: error instanceof Error ? error.stack : undefined,
        });
      }
    }
  }
}

/**
 * A change of one of the manager's own tasks. A class (not an object literal with a getter) so that
 * the per-change cost is one small object: the TaskInfo snapshot is built on first read of `task`.
 */
class RecordChange implements TaskChange {
  readonly taskId: string;
  readonly state: TaskChange['state'];
  // Private slots, not properties: a listener that spreads or logs a change sees only its fields.
  readonly #record: TaskRecord;
  #snapshot: TaskInfo | undefined;

  constructor(
    readonly kind: TaskChange['kind'],
    record: TaskRecord,
    readonly event: TaskEvent | undefined,
    readonly origin: TaskOrigin | undefined,
    snapshot: TaskInfo | undefined,
  ) {
    this.taskId = record.id;
    this.state = record.state;
    this.#record = record;
    this.#snapshot = snapshot;
  }

  get task(): TaskInfo {
    return (this.#snapshot ??= this.#record.snapshot());
  }
}
