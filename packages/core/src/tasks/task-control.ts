import { type TaskState } from '../models/schema.js';
import { type TaskInfo } from '../models/task-info.model.js';
import { checkStates } from './task-arguments.js';
import { TaskArgumentError } from './task.error.js';
import { describeValue } from './task-json.util.js';

/** Which tasks {@link TaskControl.list} returns; every field is optional. */
export interface TaskListFilter {
  /** Only tasks of this tool (or of these tools). */
  tool?: string | readonly string[];
  /** Only tasks in this state (or these states), e.g. `'running'`. */
  state?: TaskState | readonly TaskState[];
}

/** Which running tasks {@link TaskControl.cancelAll} cancels; all of them when empty. */
export interface CancelAllOptions {
  /** Only tasks of this tool (or of these tools). */
  tool?: string | readonly string[];
  /** Only these task ids ("cancel several"). */
  taskIds?: readonly string[];
  /** Never these task ids. */
  except?: string | readonly string[];
}

/**
 * Lists and cancels the tasks of this server, from a tool (`ctx.tasks` of a `@Tool` method) or a
 * task body (`ctx.tasks` of a TaskContext) — what an `emergency_stop` tool is built from.
 * Cancelling answers promptly: the returned TaskInfo is `cancelled`, and carries
 * `body_running: true` while the task's body has not stopped yet (see docs/core.md).
 */
export interface TaskControl {
  /** Snapshots of this server's known tasks in creation order, filtered. */
  list(filter?: TaskListFilter): TaskInfo[];
  /** A snapshot of one task, or undefined if unknown. */
  get(taskId: string): TaskInfo | undefined;
  /**
   * Cancels one task (idempotent; a finished task is returned unchanged, an unknown one gives
   * undefined).
   */
  cancel(taskId: string): Promise<TaskInfo | undefined>;
  /**
   * Cancels every running task that matches (all running tasks when `options` is empty), in
   * parallel, and returns the TaskInfo of each task it cancelled. From a task body, the calling
   * task itself is never cancelled by it.
   */
  cancelAll(options?: CancelAllOptions): Promise<TaskInfo[]>;
}

/** What {@link ManagedTaskControl} needs: the TaskManager's own list/get/cancel. */
export interface TaskControlHost {
  list(states?: readonly TaskState[] | null): TaskInfo[];
  get(taskId: string): TaskInfo | undefined;
  cancel(taskId: string): Promise<TaskInfo | undefined>;
}

function names(argument: string, value: unknown, example: string): Set<string> | undefined {
  if (value === undefined || value === null) return undefined;
  const list: unknown[] = Array.isArray(value) ? value : [value];
  for (const item of list) {
    if (typeof item !== 'string' || item.length === 0) {
      throw new TaskArgumentError(
        argument,
        `expected a non-empty string or an array of them such as ${example}, got ${describeValue(value)}`,
      );
    }
  }
  return new Set(list as string[]);
}

function stateSet(value: unknown): Set<TaskState> | undefined {
  if (value === undefined || value === null) return undefined;
  return checkStates((Array.isArray(value) ? value : [value]) as TaskState[]);
}

function checkTaskId(taskId: unknown): string {
  if (typeof taskId !== 'string' || taskId.length === 0) {
    throw new TaskArgumentError(
      'taskId',
      `expected a task id such as "nav-7f3a2b", got ${describeValue(taskId)}`,
    );
  }
  return taskId;
}

/** The {@link TaskControl} over a TaskManager; `self` is the calling task, never cancelled by cancelAll. */
export class ManagedTaskControl implements TaskControl {
  constructor(
    private readonly host: TaskControlHost,
    private readonly self?: string,
  ) {}

  list(filter: TaskListFilter = {}): TaskInfo[] {
    const tools = names('tool', filter?.tool, '"navigate_to"');
    const states = stateSet(filter?.state);
    return this.host.list(states ? [...states] : undefined).filter((t) => !tools || tools.has(t.tool));
  }

  get(taskId: string): TaskInfo | undefined {
    return this.host.get(checkTaskId(taskId));
  }

  cancel(taskId: string): Promise<TaskInfo | undefined> {
    try {
      return this.host.cancel(checkTaskId(taskId));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async cancelAll(options: CancelAllOptions = {}): Promise<TaskInfo[]> {
    const tools = names('tool', options?.tool, '"navigate_to"');
    const only = names('taskIds', options?.taskIds, '["nav-7f3a2b"]');
    const except = names('except', options?.except, '"nav-7f3a2b"') ?? new Set<string>();
    if (this.self !== undefined) except.add(this.self);
    const targets = this.host
      .list(['running'])
      .filter(
        (t) => (!tools || tools.has(t.tool)) && (!only || only.has(t.task_id)) && !except.has(t.task_id),
      );
    const results = await Promise.all(targets.map((t) => this.host.cancel(t.task_id)));
    return results.filter((info): info is TaskInfo => info !== undefined);
  }
}
