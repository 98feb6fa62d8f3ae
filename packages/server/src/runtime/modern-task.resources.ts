import {
  ResourceNotFoundError,
  type Server,
  type ServerContext,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { type Clock, type Logger, type TaskManager } from '@robot-mcp-kit/core';
import { RUNNING_TASKS_URI, TaskResourceCatalog, taskUri } from '../task-views/task-resources.catalog.js';
import { UpdateCoalescer } from '../task-views/update-coalescer.js';
import { scopeOf, type TaskOwners } from '../auth/task-owners.js';
import { type TaskStoreBridge } from './task-store.bridge.js';
import { type RemoteChangeSource, TaskProjection } from '../task-views/task-projection.js';

const LIST_KEY = 'list';

/** What the 2026 leg's `tasks://` resources need: the capability bits and the handlers. */
export const TASK_RESOURCES_CAPABILITY = Object.freeze({ subscribe: true, listChanged: true });

/**
 * `tasks://running` and `tasks://{task_id}` on the MCP 2026-07-28 leg: the catalog the 2025
 * sessions read (one task, every surface), installed with the v2 SDK's handlers on each per-request
 * `Server`. 2026-07-28 has no resources/subscribe, a client follows them through
 * `subscriptions/listen` (see {@link TaskChangePublisher}). A request sees only the tasks the one
 * rule allows its principal (`TaskOwners.allows`), as get_task does. With a task store
 * (`RMK_STORE`), `tasks://<id>` of another replica's task is read from the store.
 */
export function installTaskResources(
  server: Server,
  taskManager: TaskManager,
  owners: Pick<TaskOwners, 'allows'>,
  stored?: TaskStoreBridge,
): void {
  const catalog = new TaskResourceCatalog(taskManager, stored, owners);
  const scope = (ctx: ServerContext): string => scopeOf(ctx.http?.authInfo?.clientId);
  server.setRequestHandler('resources/list', async (_request, ctx) => ({
    resources: await catalog.list(scope(ctx)),
  }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: catalog.templates() }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    const read = await catalog.read(uri, scope(ctx));
    if (!read) throw new ResourceNotFoundError(uri, catalog.notFoundMessage(uri));
    return read;
  });
}

/** Where the 2026 leg's change events go (the HTTP handler's `notify`, or one stdio instance). */
export type TaskChangeSink = Pick<ServerNotifier, 'resourceUpdated' | 'resourcesChanged'>;

/**
 * The changes of tasks another replica runs (`TaskStoreBridge.onRemoteChange`: the store's change
 * channel, the one the 2025 sessions' subscriptions follow too). Returns the function that stops it.
 */
export type RemoteTaskChanges = (listener: (taskId: string) => void) => () => void;

/**
 * Publishes task changes to open `subscriptions/listen` streams as
 * `notifications/resources/updated` of `tasks://<task_id>` and `tasks://running` (and
 * `resources/list_changed` when a task starts or ends), coalesced per URI like the 2025 sessions'
 * updates. The v2 SDK filters per stream: only listeners that named the URI in
 * `resourceSubscriptions` (or asked for `resourcesListChanged`) receive it. With `remote` (a task
 * store), changes of other replicas' tasks are announced the same way.
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
    /** Other replicas' changes: the store bridge (one subscription however many publishers). */
    remote?: RemoteTaskChanges | RemoteChangeSource,
  ) {
    this.coalescer = new UpdateCoalescer(intervalMs, clock, (key) => {
      try {
        if (key === LIST_KEY) sink.resourcesChanged();
        else sink.resourceUpdated(key);
      } catch (err) {
        logger.debug('could not publish a task change to subscriptions/listen', { key, error: String(err) });
      }
    });
    const source = typeof remote === 'function' ? { onRemoteChange: remote } : remote;
    this.stop = TaskProjection.of(taskManager).subscribe((change) => {
      this.coalescer.touch(taskUri(change.taskId));
      this.coalescer.touch(RUNNING_TASKS_URI);
      if (change.kind === 'started' || change.kind === 'finished') this.coalescer.touch(LIST_KEY);
    }, source);
  }

  close(): void {
    this.stop();
    this.coalescer.close();
  }
}
