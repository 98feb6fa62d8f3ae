import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  type ReadResourceResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Clock,
  type Logger,
  shortText,
  type TaskInfo,
  type TaskInfoJson,
  type TaskManager,
} from '@robot-mcp-kit/core';
import { type Feature } from '../../runtime/feature.types.js';
import { type AppExtension } from '../../runtime/robot-mcp-app.js';
import { type SessionContext } from '../../tools/registered-tool.js';
import { type TaskStoreBridge } from '../../runtime/task-store.bridge.js';
import { parseInteger } from '../feature-config.js';
import { type TaskResourcesOptions } from './task-resources.options.js';
import { UpdateCoalescer } from './update-coalescer.js';

/** The running tasks: `{"tasks": [TaskInfo, ...]}`. */
export const RUNNING_TASKS_URI = 'tasks://running';
/** The URI template of one task's TaskInfo. */
export const TASK_URI_TEMPLATE = 'tasks://{task_id}';
/** Default minimum interval between two updates of one URI. */
export const DEFAULT_RESOURCE_UPDATE_INTERVAL_MS = 250;

const MIME = 'application/json';

export function taskUri(taskId: string): string {
  return `tasks://${taskId}`;
}

interface Subscriber {
  readonly mcp: McpServer;
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

  constructor(
    private readonly taskManager: TaskManager,
    clock: Clock,
    intervalMs: number,
    private readonly logger: Logger,
    /** With a task store (`RMK_STORE`): reads `tasks://<id>` of other replicas. */
    private readonly stored?: TaskStoreBridge,
  ) {
    this.coalescer = new UpdateCoalescer(intervalMs, clock, (uri) => this.announce(uri));
    this.stop = taskManager.onChange((change) => {
      this.touch(taskUri(change.taskId));
      this.touch(RUNNING_TASKS_URI);
      if (change.kind !== 'event' && this.subscribers.size > 0) this.coalescer.touch(LIST_KEY);
    });
  }

  /** Registers the resources and the subscribe/unsubscribe handlers on one session's server. */
  install(mcp: McpServer, session: SessionContext): void {
    const subscriber: Subscriber = { mcp, uris: new Set() };
    this.subscribers.set(session, subscriber);
    mcp.registerResource(
      'running_tasks',
      RUNNING_TASKS_URI,
      {
        title: 'Running tasks',
        description: 'The running tasks of this server as {"tasks": [TaskInfo, ...]}; subscribe for changes.',
        mimeType: MIME,
      },
      async (uri) => {
        const tasks = (await this.tasksOf(session)).filter((t) => t.state === 'running');
        return this.json(uri, { tasks: tasks.map((t) => t.toJSON()) });
      },
    );
    mcp.registerResource(
      'task',
      new ResourceTemplate(TASK_URI_TEMPLATE, {
        list: async () => ({
          resources: (await this.tasksOf(session)).map((t) => ({
            uri: taskUri(t.task_id),
            name: t.task_id,
            title: `${t.tool} (${t.state})`,
            mimeType: MIME,
          })),
        }),
      }),
      {
        title: 'Task',
        description:
          'The TaskInfo JSON of one task (state, progress, result or failure); subscribe for changes.',
        mimeType: MIME,
      },
      async (uri, variables) => {
        const taskId = String(variables.task_id);
        const info = this.taskManager.get(taskId)?.toJSON() ?? (await this.remote(session, taskId));
        if (!info) throw notFound(uri.href);
        return this.json(uri, info);
      },
    );
    mcp.server.registerCapabilities({ resources: { subscribe: true } });
    mcp.server.setRequestHandler(SubscribeRequestSchema, (request) => {
      const { uri } = request.params;
      if (!this.exists(uri)) throw notFound(uri);
      subscriber.uris.add(uri);
      return {};
    });
    mcp.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
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

  /** The tasks this session may see: this replica's, and with a task store the other replicas' too. */
  private async tasksOf(session: SessionContext): Promise<TaskInfo[]> {
    if (!this.stored?.active) return this.taskManager.list();
    return this.stored.tasksOf(this.stored.scopeOfSession(session.id));
  }

  /** A task of another replica, read from the task store (same principal), when one is configured. */
  private async remote(session: SessionContext, taskId: string): Promise<TaskInfoJson | undefined> {
    if (!this.stored?.active) return undefined;
    return (await this.stored.get(this.stored.scopeOfSession(session.id), taskId))?.task;
  }

  private exists(uri: string): boolean {
    if (uri === RUNNING_TASKS_URI) return true;
    return uri.startsWith('tasks://') && this.taskManager.get(uri.slice('tasks://'.length)) !== undefined;
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
      subscriber.mcp.server.sendResourceUpdated({ uri }).catch((err: unknown) => {
        this.logger.debug('could not send resources/updated', { uri, error: String(err) });
      });
    }
  }

  private announceList(): void {
    for (const subscriber of this.subscribers.values()) {
      if (!subscriber.mcp.isConnected()) continue;
      subscriber.mcp.server.sendResourceListChanged().catch((err: unknown) => {
        this.logger.debug('could not send resources/list_changed', { error: String(err) });
      });
    }
  }

  private json(uri: URL, value: unknown): ReadResourceResult {
    return { contents: [{ uri: uri.href, mimeType: MIME, text: JSON.stringify(value) }] };
  }
}

function notFound(uri: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Resource ${shortText(uri, 100)} not found; use ${RUNNING_TASKS_URI} or tasks://<task_id> of a task list_tasks shows`,
  );
}

/** The task resources' session hooks; the MCP 2026 leg reads `intervalMs` to serve the same. */
export interface TaskResourcesExtension extends AppExtension {
  readonly name: 'task-resources';
  /** Minimum interval between two updates of one URI, resolved from the option or variable. */
  readonly intervalMs: number;
}

/**
 * MCP resources `tasks://running` and `tasks://{task_id}` (TaskInfo JSON) with
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
        ctx.stored,
      );
      const extension: TaskResourcesExtension = {
        name: 'task-resources',
        intervalMs,
        installSession: (mcp, session) => hub.install(mcp, session),
        sessionClosed: (session) => hub.drop(session),
        close: () => hub.close(),
      };
      return { extension };
    },
  };
}
