import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListTasksRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import { relatedTaskMeta, taskPayloadResult } from '../task-views/task-payload.builder.js';
import { PROTOCOL_STATUS, toProtocolTask } from '../task-views/task-status.mapper.js';
import { TaskNotCancellableError, UnknownTaskError } from '../task-methods/task-method.errors.js';
import { type SessionContext } from '../tools/registered-tool.js';
import {
  type ResourceSource,
  type SessionSurface,
  type SurfaceCaller,
  type SurfaceNotifier,
  type SurfaceTaskNotifier,
  type TaskMethodSource,
  type TaskView,
} from './session-surface.port.js';

/** The SEP-1686 tasks capability: tasks/list, tasks/cancel, and task-augmented tools/call. */
export const TASKS_CAPABILITY: NonNullable<ServerCapabilities['tasks']> = Object.freeze({
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
});

/**
 * The session surface of one MCP 2025-11-25 session on the v1 SDK's low-level `Server`, through its
 * public API only: `registerCapabilities`, `setRequestHandler` with the SDK's request schemas,
 * `sendResourceUpdated` and `sendResourceListChanged`. The session's resources/subscribe set lives
 * here: its notifier follows exactly the URIs the client subscribed to. Task methods are SEP-1686,
 * scoped to this session. The app calls {@link close} when the session ends.
 */
export class SdkV1SessionSurface implements SessionSurface {
  readonly notifier: SurfaceNotifier;
  readonly taskNotifier: SurfaceTaskNotifier;
  private readonly subscribed = new Set<string>();
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly server: Server,
    readonly session: SessionContext,
    /** The session's principal, read per request (it is bound once the session authenticated). */
    private readonly scope: () => string,
    private readonly logger: Logger,
  ) {
    this.notifier = {
      follows: (uri) => this.subscribed.has(uri),
      resourceUpdated: (uri) => {
        server.sendResourceUpdated({ uri }).catch((err: unknown) => {
          this.logger.debug('could not send resources/updated', { uri, error: String(err) });
        });
      },
      resourcesListChanged: () => {
        if (server.transport === undefined) return;
        server.sendResourceListChanged().catch((err: unknown) => {
          this.logger.debug('could not send resources/list_changed', { error: String(err) });
        });
      },
    };
    const failed = (method: string) => (err: unknown) =>
      this.logger.debug('could not send a task notification', {
        method,
        session: session.id,
        error: String(err),
      });
    this.taskNotifier = {
      taskStatus: (view) => {
        const params = toProtocolTask(view.info, view);
        server.notification({ method: 'notifications/tasks/status', params }).catch(failed('tasks/status'));
      },
      progress: ({ token, relatedTaskId, ...values }) => {
        const params = {
          progressToken: token,
          ...values,
          ...(relatedTaskId !== undefined ? { _meta: relatedTaskMeta(relatedTaskId) } : {}),
        };
        server.notification({ method: 'notifications/progress', params }).catch(failed('progress'));
      },
    };
  }

  serveResources(source: ResourceSource): void {
    const { server } = this;
    const caller = (): SurfaceCaller => this.caller();
    const notFound = (uri: string): McpError =>
      // invalid params, as the SDK's McpServer answered an unknown resource
      new McpError(ErrorCode.InvalidParams, source.notFoundMessage(uri));
    server.registerCapabilities({
      resources: { listChanged: true, ...(source.subscribable ? { subscribe: true } : {}) },
    });
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: await source.list(caller()),
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: source.templates(),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const read = await source.read(request.params.uri, caller());
      if (!read) throw notFound(request.params.uri);
      return read;
    });
    const { subscribable } = source;
    if (!subscribable) return;
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      const { uri } = request.params;
      if (!(await subscribable.call(source, uri, caller()))) throw notFound(uri);
      this.subscribed.add(uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      this.subscribed.delete(request.params.uri);
      return {};
    });
  }

  /**
   * SEP-1686 for this session: tasks/get, tasks/result (waits for the end or the request's
   * cancellation), tasks/list and tasks/cancel (a task that already ended is refused with -32602).
   */
  serveTaskMethods(source: TaskMethodSource): void {
    const { server } = this;
    const found = async (taskId: string, view: Promise<TaskView | undefined>): Promise<TaskView> =>
      (await view) ?? Promise.reject(new UnknownTaskError(taskId));
    server.registerCapabilities({ tasks: TASKS_CAPABILITY });
    server.setRequestHandler(GetTaskRequestSchema, async ({ params }) => {
      const view = await found(params.taskId, source.get(params.taskId, this.caller()));
      return toProtocolTask(view.info, view);
    });
    server.setRequestHandler(GetTaskPayloadRequestSchema, async ({ params }, extra) => {
      const view = await found(params.taskId, source.ended(params.taskId, this.caller(), extra.signal));
      return taskPayloadResult(view.info);
    });
    server.setRequestHandler(ListTasksRequestSchema, (request) => {
      const page = source.list(this.caller(), request.params?.cursor);
      const tasks = page.views.map((view) => toProtocolTask(view.info, view));
      return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
    });
    server.setRequestHandler(CancelTaskRequestSchema, async ({ params }) => {
      const outcome = await source.cancel(params.taskId, this.caller());
      if (!outcome) throw new UnknownTaskError(params.taskId);
      const { view } = outcome;
      if (!outcome.cancelled || !view) {
        throw new TaskNotCancellableError(
          params.taskId,
          view ? PROTOCOL_STATUS[view.info.state] : 'completed',
        );
      }
      return toProtocolTask(view.info, view);
    });
  }

  onClosed(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  private caller(): SurfaceCaller {
    return { scope: this.scope(), session: this.session };
  }

  /** The session ended: runs the close listeners once and forgets the subscriptions. */
  close(): void {
    this.subscribed.clear();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
