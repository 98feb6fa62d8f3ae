import { type TaskInfo, type TaskInfoJson, type TaskManager } from '@robot-mcp-kit/core';
import { shortText } from '@robot-mcp-kit/core/rules';
import { type TaskStoreBridge } from '../store/task-store.bridge.js';
import { type TaskOwners } from '../auth/task-owners.js';

/** The running tasks: `{"tasks": [TaskInfo, ...]}`. */
export const RUNNING_TASKS_URI = 'tasks://running';
/** The URI template of one task's TaskInfo. */
export const TASK_URI_TEMPLATE = 'tasks://{task_id}';

const MIME = 'application/json';

/** resources/list names at most this many running tasks (the newest); the template reads any task. */
export const MAX_LISTED_RUNNING = 100;
/** resources/list names at most this many finished tasks: the most recently created ones. */
export const MAX_LISTED_FINISHED = 20;
const SCHEME = 'tasks://';

export function taskUri(taskId: string): string {
  return `${SCHEME}${taskId}`;
}

/** One resources/list entry. */
export interface TaskResourceEntry {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
}

/** One resources/templates/list entry. */
export interface TaskResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
}

/** A resources/read answer (a type, not an interface: both SDKs' result types are open records). */
export type TaskResourceContents = { contents: { uri: string; mimeType: string; text: string }[] };

const RUNNING_DESCRIPTION =
  'The running tasks of this server as {"tasks": [TaskInfo, ...]}; subscribe for changes.';
const TASK_DESCRIPTION =
  'The TaskInfo JSON of one task (state, progress, result or failure); subscribe for changes.';

/**
 * The rules of the `tasks://` resources, the one source both protocol generations serve (the
 * task-resources feature installs it into the kit's session surface): what resources/list and
 * resources/templates/list answer, what a URI reads, and the error text of an unknown URI.
 *
 * A `scope` (the caller's principal) sees only the tasks the one rule allows it
 * (`TaskOwners.allows`, on every replica the same), and reads other replicas' tasks of that scope
 * from the task store when one is configured; without a scope every task of this replica is seen.
 */
export class TaskResourceCatalog {
  constructor(
    private readonly taskManager: TaskManager,
    private readonly stored?: TaskStoreBridge,
    private readonly owners?: Pick<TaskOwners, 'allows'>,
  ) {}

  /**
   * The resources/list entries: `tasks://running`, then the running tasks and the recent finished
   * ones (at most {@link MAX_LISTED_RUNNING} and {@link MAX_LISTED_FINISHED}, the newest, in creation
   * order). Any task the server still knows reads through the `tasks://{task_id}` template.
   */
  async list(scope?: string): Promise<TaskResourceEntry[]> {
    const tasks = listed(await this.tasks(scope));
    return [
      {
        uri: RUNNING_TASKS_URI,
        name: 'running_tasks',
        title: 'Running tasks',
        description: RUNNING_DESCRIPTION,
        mimeType: MIME,
      },
      ...tasks.map((t) => ({
        uri: taskUri(t.task_id),
        name: t.task_id,
        title: `${t.tool} (${t.state})`,
        description: TASK_DESCRIPTION,
        mimeType: MIME,
      })),
    ];
  }

  /** The resources/templates/list entries. */
  templates(): TaskResourceTemplate[] {
    return [
      {
        uriTemplate: TASK_URI_TEMPLATE,
        name: 'task',
        title: 'Task',
        description: TASK_DESCRIPTION,
        mimeType: MIME,
      },
    ];
  }

  /** What `uri` reads, or undefined for a task nobody knows and for a URI that is not ours. */
  async read(uri: string, scope?: string): Promise<TaskResourceContents | undefined> {
    if (uri === RUNNING_TASKS_URI) {
      const running = (await this.tasks(scope)).filter((t) => t.state === 'running');
      return json(uri, { tasks: running.map((t) => t.toJSON()) });
    }
    const taskId = taskIdOf(uri);
    if (taskId === undefined) return undefined;
    const info = this.local(taskId, scope)?.toJSON() ?? (await this.remote(taskId, scope));
    return info ? json(uri, info) : undefined;
  }

  /** Whether `uri` names a resource of this replica (what a 2025 client may subscribe to). */
  exists(uri: string, scope?: string): boolean {
    if (uri === RUNNING_TASKS_URI) return true;
    const taskId = taskIdOf(uri);
    return taskId !== undefined && this.local(taskId, scope) !== undefined;
  }

  /**
   * Whether `uri` names a resource `scope` may read on this replica or, with a task store, on
   * another (what a 2025 client may subscribe to: another replica's changes reach it through the
   * store's change channel).
   */
  async knows(uri: string, scope?: string): Promise<boolean> {
    if (this.exists(uri, scope)) return true;
    const taskId = taskIdOf(uri);
    return taskId !== undefined && (await this.remote(taskId, scope)) !== undefined;
  }

  /** The message of the error answering an unknown or foreign URI (each leg's SDK error carries it). */
  notFoundMessage(uri: string): string {
    return `Resource ${shortText(uri, 100)} not found; use ${RUNNING_TASKS_URI} or tasks://<task_id> of a task list_tasks shows`;
  }

  private async tasks(scope: string | undefined): Promise<TaskInfo[]> {
    if (scope === undefined) return this.taskManager.list();
    const allows = (taskId: string): boolean => this.owners?.allows(scope, taskId) ?? true;
    if (!this.stored?.active) return this.taskManager.list().filter((t) => allows(t.task_id));
    return this.stored.tasksOf(scope, allows);
  }

  /** This replica's task, if `scope` may see it (any, without a scope). */
  private local(taskId: string, scope: string | undefined): TaskInfo | undefined {
    const info = this.taskManager.get(taskId);
    if (!info || scope === undefined) return info;
    return (this.owners?.allows(scope, taskId) ?? true) ? info : undefined;
  }

  private async remote(taskId: string, scope: string | undefined): Promise<TaskInfoJson | undefined> {
    if (scope === undefined || !this.stored?.active) return undefined;
    return (await this.stored.get(scope, taskId))?.task;
  }
}

/** The newest running and finished tasks, bounded, in creation order. */
function listed(tasks: readonly TaskInfo[]): TaskInfo[] {
  const running = tasks.filter((t) => t.state === 'running').slice(-MAX_LISTED_RUNNING);
  const finished = tasks.filter((t) => t.state !== 'running').slice(-MAX_LISTED_FINISHED);
  const chosen = new Set([...running, ...finished]);
  return tasks.filter((t) => chosen.has(t));
}

/** The task id of `tasks://<task_id>` (one path-free segment, as the URI template matches). */
function taskIdOf(uri: string): string | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const id = uri.slice(SCHEME.length);
  return id.length > 0 && !id.includes('/') ? id : undefined;
}

function json(uri: string, value: unknown): TaskResourceContents {
  return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(value) }] };
}
