import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import {
  type ResourceSource,
  type SessionSurface,
  type SurfaceCaller,
  type SurfaceNotifier,
} from './session-surface.port.js';

/**
 * The session surface of one MCP 2025-11-25 session on the v1 SDK's low-level `Server`, through its
 * public API only: `registerCapabilities`, `setRequestHandler` with the SDK's request schemas,
 * `sendResourceUpdated` and `sendResourceListChanged`. The session's resources/subscribe set lives
 * here: its notifier follows exactly the URIs the client subscribed to. The app calls
 * {@link close} when the session ends.
 */
export class SdkV1SessionSurface implements SessionSurface {
  readonly notifier: SurfaceNotifier;
  private readonly subscribed = new Set<string>();
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly server: Server,
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
  }

  serveResources(source: ResourceSource): void {
    const { server } = this;
    const caller = (): SurfaceCaller => ({ scope: this.scope() });
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

  onClosed(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** The session ended: runs the close listeners once and forgets the subscriptions. */
  close(): void {
    this.subscribed.clear();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
