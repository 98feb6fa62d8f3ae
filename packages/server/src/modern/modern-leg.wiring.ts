import { InMemoryServerEventBus, type McpServerFactory } from '@modelcontextprotocol/server';
import { type Logger } from '@robot-mcp-kit/core';
import { type TaskOwners } from '../auth/task-owners.js';
import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { type ToolRegistry } from '../tools/tool-registry.js';
import { type ModernServerParts, modernServerFactory } from './modern-server.factory.js';
import { type McpServerTelemetry } from '../telemetry/mcp-request.telemetry.js';
import { type McpNetworkTransport } from '../telemetry/mcp-semconv.names.js';
import { type MessageStage } from '../transports/message-pipeline.transport.js';
import { modernStages } from '../transports/message.stages.js';
import { type SurfaceFeature } from '../surface/session-surface.port.js';
import { listenBusNotifier, SdkV2SessionSurface } from '../surface/sdk-v2.session-surface.js';

/** What the app hands the MCP 2026-07-28 leg. */
export interface ModernWiringOptions {
  readonly definition: CapabilityServerDefinition;
  readonly registry: ToolRegistry;
  readonly owners: TaskOwners;
  readonly logger: Logger;
  /** The app's MCP telemetry: the 2026 leg's requests get server spans and metrics too. */
  readonly telemetry: McpServerTelemetry;
  /** What the features install on every session surface (the `tasks://` resources, SEP-2663, ...). */
  readonly features: readonly SurfaceFeature[];
}

/**
 * The MCP 2026-07-28 leg of one app: the v2 server factory (tools, the features' session surfaces:
 * resources, the native tasks' SEP-2663) and the change-event bus its HTTP `subscriptions/listen` streams carry. The features'
 * notifications reach listeners over HTTP through the bus, over stdio as the connection's
 * instance's own notifications (`serveStdio` routes them onto that connection's subscriptions).
 */
export class ModernWiring {
  readonly bus = new InMemoryServerEventBus();
  /** One server per HTTP request. */
  readonly factory: McpServerFactory;
  /** What both factories serve (the same features for HTTP and stdio). */
  private readonly parts: ModernServerParts;
  private readonly stops: (() => void)[] = [];

  constructor(private readonly options: ModernWiringOptions) {
    const { definition, registry, owners, features } = options;
    this.parts = { definition, registry, owners, features };
    this.factory = modernServerFactory(this.parts, (server) => SdkV2SessionSurface.request(server));
  }

  /** HTTP: the features publish their notifications onto {@link bus} (once per app). */
  publishToBus(): void {
    if (this.stops.length > 0) return;
    const notifier = listenBusNotifier(this.bus);
    for (const feature of this.options.features) {
      const stop = feature.publishTo?.(notifier);
      if (stop) this.stops.push(stop);
    }
  }

  /** Stdio: a factory whose instances send the features' notifications themselves until they close. */
  stdioFactory(): McpServerFactory {
    const { logger } = this.options;
    return modernServerFactory(this.parts, (server) => SdkV2SessionSurface.connection(server, logger));
  }

  /** The kit's message stages (guard, tracing, task handle) of one HTTP exchange or stdio connection. */
  stages(network: McpNetworkTransport): MessageStage[] {
    return modernStages(this.options.logger, this.options.telemetry, network);
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}
