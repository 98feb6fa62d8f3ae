import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Clock, type Logger, type TaskManager } from '@robot-mcp-kit/core';
import { type Feature, type TaskResourcesExtension } from '../../runtime/feature.types.js';
import { type SessionContext } from '../../tools/registered-tool.js';
import { type TaskStoreBridge } from '../../runtime/task-store.bridge.js';
import { type TaskOwners } from '../../auth/task-owners.js';
import { parseInteger } from '../feature-config.js';
import { type TaskResourcesOptions } from './task-resources.options.js';
import { RUNNING_TASKS_URI, TaskResourceCatalog, taskUri } from '../../task-views/task-resources.catalog.js';
import { installLegacyTaskResources, legacyNotFound } from './task-resources.legacy.js';
import { withTaskLinks } from './task-link.js';
import { UpdateCoalescer } from '../../task-views/update-coalescer.js';
import { TaskProjection } from '../../task-views/task-projection.js';

/** Default minimum interval between two updates of one URI. */
export const DEFAULT_RESOURCE_UPDATE_INTERVAL_MS = 250;

interface Subscriber {
  readonly server: Server;
  readonly uris: Set<string>;
}

/** The coalescer key of `notifications/resources/list_changed` (not a URI: no `://`). */
const LIST_KEY = 'list';

/**
 * Serves `tasks://running` and `tasks://{task_id}` on every session and sends
 * `notifications/resources/updated` to the sessions that subscribed, at most once per URI per
 * interval (the last change is always announced). Every session gets
 * `notifications/resources/list_changed`, coalesced the same way, when a task starts or finishes
 * (a `tasks://` resource appears, changes its listed title, or an old finished one is evicted).
 */
export class TaskResourceHub {
  private readonly subscribers = new Map<SessionContext, Subscriber>();
  private readonly coalescer: UpdateCoalescer;
  private readonly stop: () => void;
  private readonly catalog: TaskResourceCatalog;

  constructor(
    taskManager: TaskManager,
    clock: Clock,
    intervalMs: number,
    private readonly logger: Logger,
    /** Who may see which task (the one rule, every replica the same). */
    private readonly owners: Pick<TaskOwners, 'allows' | 'scopeOfSession'>,
    /** With a task store (`RMK_STORE`): reads `tasks://<id>` of other replicas. */
    stored?: TaskStoreBridge,
  ) {
    this.catalog = new TaskResourceCatalog(taskManager, stored, owners);
    this.coalescer = new UpdateCoalescer(intervalMs, clock, (uri) => this.announce(uri));
    // this replica's changes and, with a task store, other replicas' (the store's change channel)
    this.stop = TaskProjection.of(taskManager).subscribe((change) => {
      if (this.subscribers.size === 0) return;
      if (this.anySubscription()) {
        this.touch(taskUri(change.taskId));
        this.touch(RUNNING_TASKS_URI);
      }
      if (change.kind === 'started' || change.kind === 'finished') this.coalescer.touch(LIST_KEY);
    }, stored);
  }

  /** Installs the resources and the subscribe/unsubscribe handlers on one session's server. */
  install(server: Server, session: SessionContext): void {
    const subscriber: Subscriber = { server, uris: new Set() };
    this.subscribers.set(session, subscriber);
    const scope = (): string => this.owners.scopeOfSession(session.id);
    installLegacyTaskResources(server, this.catalog, scope);
    server.registerCapabilities({ resources: { subscribe: true } });
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      const { uri } = request.params;
      if (!(await this.catalog.knows(uri, scope()))) throw legacyNotFound(this.catalog, uri);
      subscriber.uris.add(uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      subscriber.uris.delete(request.params.uri);
      return {};
    });
  }

  drop(session: SessionContext): void {
    this.subscribers.delete(session);
  }

  close(): void {
    this.stop();
    this.coalescer.close();
    this.subscribers.clear();
  }

  /** Whether any session subscribed to a URI (no task URI is built for a change otherwise). */
  private anySubscription(): boolean {
    for (const subscriber of this.subscribers.values()) if (subscriber.uris.size > 0) return true;
    return false;
  }

  private touch(uri: string): void {
    for (const subscriber of this.subscribers.values()) {
      if (subscriber.uris.has(uri)) {
        this.coalescer.touch(uri);
        return;
      }
    }
  }

  private announce(uri: string): void {
    if (uri === LIST_KEY) {
      this.announceList();
      return;
    }
    for (const subscriber of this.subscribers.values()) {
      if (!subscriber.uris.has(uri)) continue;
      subscriber.server.sendResourceUpdated({ uri }).catch((err: unknown) => {
        this.logger.debug('could not send resources/updated', { uri, error: String(err) });
      });
    }
  }

  private announceList(): void {
    for (const subscriber of this.subscribers.values()) {
      if (subscriber.server.transport === undefined) continue;
      subscriber.server.sendResourceListChanged().catch((err: unknown) => {
        this.logger.debug('could not send resources/list_changed', { error: String(err) });
      });
    }
  }
}

/**
 * MCP resources `tasks://running` and `tasks://{task_id}` (TaskInfo JSON; a long-running tool's
 * answer links its task's resource) with
 * `notifications/resources/updated` for subscribed clients, coalesced per URI
 * (`resourceUpdateIntervalMs`, default 250 ms).
 */
export function taskResourcesFeature(options: TaskResourcesOptions = {}): Feature {
  return {
    name: 'task-resources',
    setup(ctx) {
      const intervalMs = parseInteger(
        {
          option: 'resourceUpdateIntervalMs',
          value: options.resourceUpdateIntervalMs,
          variable: 'RMK_RESOURCE_UPDATE_MS',
          raw: ctx.env.RMK_RESOURCE_UPDATE_MS,
        },
        { min: 0, max: 60_000, fallback: DEFAULT_RESOURCE_UPDATE_INTERVAL_MS, unit: 'milliseconds' },
      );
      const hub = new TaskResourceHub(
        ctx.taskManager,
        ctx.clock,
        intervalMs,
        ctx.logger.child({ component: 'task-resources' }),
        ctx.owners,
        ctx.stored,
      );
      const extension: TaskResourcesExtension = {
        name: 'task-resources',
        intervalMs,
        installSession: (mcp, session) => hub.install(mcp, session),
        sessionClosed: (session) => hub.drop(session),
        close: () => hub.close(),
      };
      return { extension, filterTools: withTaskLinks };
    },
  };
}
