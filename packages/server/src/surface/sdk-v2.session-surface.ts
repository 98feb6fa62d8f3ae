import {
  type InMemoryServerEventBus,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Logger } from '@robot-mcp-kit/core';
import { z } from 'zod';
import {
  type ResourceSource,
  type SessionSurface,
  type SurfaceCaller,
  type SurfaceNotifier,
  type TaskMethodSource,
} from './session-surface.port.js';
import { declaresTasks, detailedTask, TASKS_EXTENSION, taskCallerOf } from './sdk-v2.task-wire.js';

const TaskIdParams = z.looseObject({ taskId: z.string() });

/**
 * The session surface of MCP 2026-07-28 on the v2 SDK's `Server` (one per request over HTTP, one
 * per stdio connection), through its public API only: `registerCapabilities`, `setRequestHandler`
 * by method name, `sendResourceUpdated` / `sendResourceListChanged` and the serving entries'
 * `subscriptions/listen` bus. 2026-07-28 has no resources/subscribe: every change is published and
 * the v2 SDK delivers it only to the listen streams that named the URI (or asked for
 * `resourcesListChanged`). Task methods are SEP-2663. A request's scope is its bearer token's principal.
 */
export class SdkV2SessionSurface implements SessionSurface {
  private tasks: TaskMethodSource | undefined;

  private constructor(
    private readonly server: Server,
    readonly notifier?: SurfaceNotifier,
  ) {}

  /** One HTTP request's server: its changes reach the app's listen streams ({@link listenBusNotifier}). */
  static request(server: Server): SdkV2SessionSurface {
    return new SdkV2SessionSurface(server);
  }

  /**
   * One stdio connection's server: it sends the changes itself (`serveStdio` routes them onto that
   * connection's listen subscriptions) until it closes.
   */
  static connection(server: Server, logger: Logger): SdkV2SessionSurface {
    const failed = (err: unknown): void => {
      logger.debug('could not send a resource change', { error: String(err) });
    };
    return new SdkV2SessionSurface(server, {
      follows: () => true,
      resourceUpdated: (uri) => void server.sendResourceUpdated({ uri }).catch(failed),
      resourcesListChanged: () => void server.sendResourceListChanged().catch(failed),
    });
  }

  serveResources(source: ResourceSource): void {
    const { server } = this;
    const caller = taskCallerOf;
    server.registerCapabilities({
      resources: { ...(source.subscribable ? { subscribe: true } : {}), listChanged: true },
    });
    server.setRequestHandler('resources/list', async (_request, ctx) => ({
      resources: await source.list(caller(ctx)),
    }));
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: source.templates() }));
    server.setRequestHandler('resources/read', async (request, ctx) => {
      const { uri } = request.params;
      const read = await source.read(uri, caller(ctx));
      if (!read) throw new ResourceNotFoundError(uri, source.notFoundMessage(uri));
      return read;
    });
  }

  /**
   * SEP-2663: the tasks extension capability, tasks/get (the DetailedTask), tasks/update (the kit's
   * tasks never ask for input: nothing to apply) and tasks/cancel, for requests that declare the
   * extension; an unknown handle is the extension's not-found error.
   */
  serveTaskMethods(source: TaskMethodSource): void {
    const { server } = this;
    this.tasks = source;
    const answer = async <T>(
      ctx: ServerContext,
      method: (caller: SurfaceCaller) => Promise<T | undefined>,
    ): Promise<T> => {
      requireTasks(ctx);
      const result = await method(taskCallerOf(ctx));
      if (result !== undefined) return result;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    };
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
    server.setRequestHandler('tasks/get', { params: TaskIdParams }, async ({ taskId }, ctx) => {
      const view = await answer(ctx, (caller) => source.get(taskId, caller));
      return { resultType: 'complete', ...detailedTask(view) };
    });
    server.setRequestHandler('tasks/update', { params: TaskIdParams }, async ({ taskId }, ctx) => {
      await answer(ctx, (caller) => source.get(taskId, caller));
      return { resultType: 'complete' };
    });
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async ({ taskId }, ctx) => {
      await answer(ctx, (caller) => source.cancel(taskId, caller));
      return { resultType: 'complete' };
    });
  }

  /**
   * The task methods a feature served here, when they can make the handle of a task a tools/call
   * starts (SEP-2663: a caller that declares the extension is answered a task, not a `task_id`).
   */
  get taskStarts(): Required<Pick<TaskMethodSource, 'create'>> | undefined {
    const create = this.tasks?.create?.bind(this.tasks);
    return create ? { create } : undefined;
  }

  onClosed(listener: () => void): void {
    if (!this.notifier) return;
    const previous = this.server.onclose;
    this.server.onclose = () => {
      listener();
      previous?.();
    };
  }
}

/** MissingRequiredClientCapabilityError unless the request declared the tasks extension. */
function requireTasks(ctx: ServerContext): void {
  if (declaresTasks(ctx)) return;
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `Missing required client capability: declare the ${TASKS_EXTENSION} extension to use ${ctx.mcpReq.method}`,
  );
}

/** The app-wide target of the 2026 HTTP leg: the bus its `subscriptions/listen` streams carry. */
export function listenBusNotifier(bus: Pick<InMemoryServerEventBus, 'publish'>): SurfaceNotifier {
  return {
    follows: () => true,
    resourceUpdated: (uri) => bus.publish({ kind: 'resource_updated', uri }),
    resourcesListChanged: () => bus.publish({ kind: 'resources_list_changed' }),
  };
}
