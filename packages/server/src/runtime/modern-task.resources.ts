import {
  type ReadResourceResult,
  ResourceNotFoundError,
  type Server,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { type Clock, type Logger, shortText, type TaskManager } from '@robot-mcp-kit/core';
import {
  RUNNING_TASKS_URI,
  TASK_URI_TEMPLATE,
  taskUri,
} from '../features/resources/task-resources.feature.js';
import { UpdateCoalescer } from '../features/resources/update-coalescer.js';

const MIME = 'application/json';
const LIST_KEY = 'list';

/** What the 2026 leg's `tasks://` resources need: the capability bits and the handlers. */
export const TASK_RESOURCES_CAPABILITY = Object.freeze({ subscribe: true, listChanged: true });

/**
 * `tasks://running` and `tasks://{task_id}` on the MCP 2026-07-28 leg: the same URIs and the same
 * TaskInfo JSON the 2025 sessions read (one task, every surface). Installed on each per-request
 * v2 `Server`; 2026-07-28 has no resources/subscribe, a client follows them through
 * `subscriptions/listen` (see {@link TaskChangePublisher}).
 */
export function installTaskResources(server: Server, taskManager: TaskManager): void {
  server.setRequestHandler('resources/list', () => ({
    resources: [
      { uri: RUNNING_TASKS_URI, name: 'running_tasks', title: 'Running tasks', mimeType: MIME },
      ...taskManager.list().map((t) => ({
        uri: taskUri(t.task_id),
        name: t.task_id,
        title: `${t.tool} (${t.state})`,
        mimeType: MIME,
      })),
    ],
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      {
        uriTemplate: TASK_URI_TEMPLATE,
        name: 'task',
        title: 'Task',
        description: 'The TaskInfo JSON of one task (state, progress, result or failure).',
        mimeType: MIME,
      },
    ],
  }));
  server.setRequestHandler('resources/read', (request) => {
    const { uri } = request.params;
    if (uri === RUNNING_TASKS_URI)
      return json(uri, { tasks: taskManager.list(['running']).map((t) => t.toJSON()) });
    const info = uri.startsWith('tasks://') ? taskManager.get(uri.slice('tasks://'.length)) : undefined;
    if (!info) {
      throw new ResourceNotFoundError(
        uri,
        `Resource ${shortText(uri, 100)} not found; use ${RUNNING_TASKS_URI} or tasks://<task_id> of a task list_tasks shows`,
      );
    }
    return json(uri, info.toJSON());
  });
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(value) }] };
}

/** Where the 2026 leg's change events go (the HTTP handler's `notify`, or one stdio instance). */
export type TaskChangeSink = Pick<ServerNotifier, 'resourceUpdated' | 'resourcesChanged'>;

/**
 * Publishes task changes to open `subscriptions/listen` streams as
 * `notifications/resources/updated` of `tasks://<task_id>` and `tasks://running` (and
 * `resources/list_changed` when a task starts or ends), coalesced per URI like the 2025 sessions'
 * updates. The v2 SDK filters per stream: only listeners that named the URI in
 * `resourceSubscriptions` (or asked for `resourcesListChanged`) receive it.
 */
export class TaskChangePublisher {
  private readonly coalescer: UpdateCoalescer;
  private readonly stop: () => void;

  constructor(
    taskManager: TaskManager,
    clock: Clock,
    intervalMs: number,
    sink: TaskChangeSink,
    logger: Logger,
  ) {
    this.coalescer = new UpdateCoalescer(intervalMs, clock, (key) => {
      try {
        if (key === LIST_KEY) sink.resourcesChanged();
        else sink.resourceUpdated(key);
      } catch (err) {
        logger.debug('could not publish a task change to subscriptions/listen', { key, error: String(err) });
      }
    });
    this.stop = taskManager.onChange((change) => {
      this.coalescer.touch(taskUri(change.taskId));
      this.coalescer.touch(RUNNING_TASKS_URI);
      if (change.kind !== 'event') this.coalescer.touch(LIST_KEY);
    });
  }

  close(): void {
    this.stop();
    this.coalescer.close();
  }
}
