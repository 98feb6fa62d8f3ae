import {
  type InMemoryServerEventBus,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Logger } from '@robot-mcp-kit/core';
import { scopeOf } from '../auth/task-owners.js';
import { type ResourceSource, type SessionSurface, type SurfaceNotifier } from './session-surface.port.js';

/**
 * The session surface of MCP 2026-07-28 on the v2 SDK's `Server` (one per request over HTTP, one
 * per stdio connection), through its public API only: `registerCapabilities`, `setRequestHandler`
 * by method name, `sendResourceUpdated` / `sendResourceListChanged` and the serving entries'
 * `subscriptions/listen` bus. 2026-07-28 has no resources/subscribe: every change is published and
 * the v2 SDK delivers it only to the listen streams that named the URI (or asked for
 * `resourcesListChanged`). A request's scope is its bearer token's principal.
 */
export class SdkV2SessionSurface implements SessionSurface {
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
    const caller = (ctx: ServerContext) => ({ scope: scopeOf(ctx.http?.authInfo?.clientId) });
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

  onClosed(listener: () => void): void {
    if (!this.notifier) return;
    const previous = this.server.onclose;
    this.server.onclose = () => {
      listener();
      previous?.();
    };
  }
}

/** The app-wide target of the 2026 HTTP leg: the bus its `subscriptions/listen` streams carry. */
export function listenBusNotifier(bus: Pick<InMemoryServerEventBus, 'publish'>): SurfaceNotifier {
  return {
    follows: () => true,
    resourceUpdated: (uri) => bus.publish({ kind: 'resource_updated', uri }),
    resourcesListChanged: () => bus.publish({ kind: 'resources_list_changed' }),
  };
}
