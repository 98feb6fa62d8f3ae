import { InMemoryServerEventBus, type McpServerFactory, type Server } from '@modelcontextprotocol/server';
import { type Clock, type Logger, type TaskManager } from '@robot-mcp-kit/core';
import { type TaskOwners } from '../auth/task-owners.js';
import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { type ToolRegistry } from '../tools/tool-registry.js';
import { ExtensionTaskIndex } from './extension-task.index.js';
import { modernServerFactory } from './modern-server.factory.js';
import { TaskChangePublisher } from './modern-task.resources.js';
import { TASKS_EXTENSION_DEFAULTS, TasksExtension } from './tasks-extension.handlers.js';
import { type TaskStoreBridge } from './task-store.bridge.js';
import { type McpServerTelemetry } from '../telemetry/mcp-request.telemetry.js';
import { type McpNetworkTransport } from '../telemetry/mcp-semconv.names.js';
import { type MessageStage } from '../transports/message-pipeline.transport.js';
import { modernStages } from '../transports/message.stages.js';

/** What the app hands the MCP 2026-07-28 leg. */
export interface ModernWiringOptions {
  readonly definition: CapabilityServerDefinition;
  readonly registry: ToolRegistry;
  readonly owners: TaskOwners;
  readonly taskManager: TaskManager;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The app's MCP telemetry: the 2026 leg's requests get server spans and metrics too. */
  readonly telemetry: McpServerTelemetry;
  /**
   * Minimum interval between two updates of one `tasks://` URI, in ms, when the task-resources
   * feature is on (`tasks://` resources are served and their changes published); undefined when off.
   */
  readonly resourceUpdateIntervalMs: number | undefined;
  /**
   * The shared task store (`RMK_STORE`): SEP-2663 handles are answered by every replica, and
   * `tasks://` changes of other replicas' tasks reach `subscriptions/listen` (its change channel).
   */
  readonly stored?: TaskStoreBridge;
}

/**
 * The MCP 2026-07-28 leg of one app: the v2 server factory (tools, SEP-2663, `tasks://` resources)
 * and the change-event bus its HTTP `subscriptions/listen` streams carry. Task changes reach
 * listeners as `notifications/resources/updated` of `tasks://<task_id>`: over HTTP through the
 * bus, over stdio as the connection's instance's own notifications (`serveStdio` routes them onto
 * that connection's subscriptions).
 */
export class ModernWiring {
  readonly bus = new InMemoryServerEventBus();
  readonly factory: McpServerFactory;
  /** The same server over stdio. */
  private readonly stdio: McpServerFactory;
  private readonly publishers = new Set<TaskChangePublisher>();

  constructor(private readonly options: ModernWiringOptions) {
    const parts = {
      definition: options.definition,
      registry: options.registry,
      owners: options.owners,
      tasks: new TasksExtension(
        options.taskManager,
        new ExtensionTaskIndex(options.clock),
        TASKS_EXTENSION_DEFAULTS,
        options.stored,
      ),
      ...(options.resourceUpdateIntervalMs !== undefined ? { taskResources: options.taskManager } : {}),
      ...(options.stored ? { taskStore: options.stored } : {}),
    };
    this.factory = modernServerFactory(parts);
    this.stdio = this.factory;
  }

  /** HTTP: publishes task changes onto {@link bus} (once per app). */
  publishToBus(): void {
    if (this.options.resourceUpdateIntervalMs === undefined || this.publishers.size > 0) return;
    this.publish({
      resourceUpdated: (uri) => this.bus.publish({ kind: 'resource_updated', uri }),
      resourcesChanged: () => this.bus.publish({ kind: 'resources_list_changed' }),
    });
  }

  /** Stdio: a factory whose instances send task changes themselves until they close. */
  stdioFactory(): McpServerFactory {
    return async (ctx) => {
      const product = await this.stdio(ctx);
      if (this.options.resourceUpdateIntervalMs === undefined) return product;
      const server = (product as { server?: Server }).server ?? (product as Server);
      const failed = (err: unknown): void => {
        this.options.logger.debug('could not send a tasks:// change', { error: String(err) });
      };
      const publisher = this.publish({
        resourceUpdated: (uri) => void server.sendResourceUpdated({ uri }).catch(failed),
        resourcesChanged: () => void server.sendResourceListChanged().catch(failed),
      });
      const previous = server.onclose;
      server.onclose = () => {
        publisher.close();
        this.publishers.delete(publisher);
        previous?.();
      };
      return product;
    };
  }

  /** The kit's message stages (guard, tracing, task handle) of one HTTP exchange or stdio connection. */
  stages(network: McpNetworkTransport): MessageStage[] {
    return modernStages(this.options.logger, this.options.telemetry, network);
  }

  close(): void {
    for (const publisher of this.publishers) publisher.close();
    this.publishers.clear();
  }

  private publish(sink: ConstructorParameters<typeof TaskChangePublisher>[3]): TaskChangePublisher {
    const { taskManager, clock, resourceUpdateIntervalMs = 0, logger, stored } = this.options;
    const publisher = new TaskChangePublisher(
      taskManager,
      clock,
      resourceUpdateIntervalMs,
      sink,
      logger,
      stored,
    );
    this.publishers.add(publisher);
    return publisher;
  }
}
