import {
  type Clock,
  createLogger,
  EventPoster,
  type EventTransport,
  type Logger,
  systemClock,
  TaskManager,
} from '@robot-mcp-kit/core';
import { exploreCapabilityServer } from '../scanning/capability-server.explorer.js';
import {
  BUILTIN_TRIGGER_PLUGINS,
  buildTriggerRegistry,
  type TriggerPlugin,
} from '../plugins/trigger-plugins.js';
import { DtoSchemaBuilder } from '../schema/dto-schema.js';
import { createDecoratedTools } from '../tools/decorated-tools.factory.js';
import { createReconciliationTools } from '../tools/reconciliation.tools.js';
import { TaskStarter } from '../tools/task-starter.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { BUILTIN_FEATURES } from '../features/builtin-features.js';
import { type Feature, type FeatureContext } from './feature.types.js';
import { type AppExtension, RobotMcpApp } from './robot-mcp-app.js';
import { type TransportConfig, transportConfigFromEnv } from './server-config.js';
import { type AuthOptions } from '../auth/auth.options.js';
import { type HttpSecurityOptions, httpSecurityFromEnv } from '../transports/http-options.js';
import { openTaskStore, type TaskStoreOption, taskStoreSetting } from './task-store.config.js';
import { TaskStoreBridge } from './task-store.bridge.js';

/** A capability server class (decorated with `@CapabilityServer`). */
export type CapabilityServerClass<T extends object = object> = new (...args: never[]) => T;

/** Options of {@link bootstrap}; everything has a default from the environment. */
export interface BootstrapOptions<T extends object = object> {
  /** The server instance; default `new ServerClass()`. Pass one to inject your own dependencies. */
  instance?: T;
  /** Trigger plugins added to the built-ins (progress_above, eta_below, zone_entered). */
  plugins?: readonly TriggerPlugin[];
  /** Replace the built-in plugins instead of adding to them. */
  replaceBuiltinPlugins?: boolean;
  /** Environment to read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
  /** Where events go; default from `RVC_CALLBACK_URL` / `RVC_EVENT_SECRET` (no-op when unset). */
  eventTransport?: EventTransport;
  /** Poster tuning (queue size, delivery lanes). */
  poster?: { maxQueue?: number; lanes?: number; maxInFlight?: number };
  /** TaskManager tuning. */
  tasks?: { maxFinishedRetained?: number; cancelGraceMs?: number; cancelReplyMs?: number };
  /** Transport overrides; default from `MCP_TRANSPORT`, `MCP_HOST`, `MCP_PORT`. */
  transport?: Partial<TransportConfig>;
  /** Bearer-token authentication of the HTTP transports with your own verifier (wins over `RMK_AUTH_TOKEN`). */
  auth?: AuthOptions;
  /** HTTP transport security: allowed hosts/origins, static token, session cap and idle time. */
  http?: HttpSecurityOptions;
  /** Extra protocol surface installed on every session. */
  extensions?: readonly AppExtension[];
  /** Deadline of the shutdown sequence (cancel + flush), default 10 s. */
  shutdownTimeoutMs?: number;
  /**
   * A task store shared by replicas (issue 18): a Redis URL (`redis://host:port/db`), settings, or
   * a TaskStore of your own. Default from `RMK_STORE` (unset: tasks live in this process only).
   * Connected when the server listens; unreachable Redis fails the start naming the URL.
   */
  store?: TaskStoreOption;
  /** Features to apply instead of the built-in ones (advanced; default {@link BUILTIN_FEATURES}). */
  features?: readonly Feature[];
}

/**
 * Scans a capability server class once, builds frozen definitions and wires them into an app:
 * the decorated tools, the reconciliation tools (get_task, cancel_task, list_tasks), the
 * TaskManager and EventPoster from the environment, and the logger. Decoration mistakes and bad
 * configuration fail here, with messages that say how to fix them.
 */
export function bootstrap<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: BootstrapOptions<T> = {},
): RobotMcpApp {
  const definition = exploreCapabilityServer(ServerClass);
  const env = options.env ?? process.env;
  const name = definition.server.name;
  const logger = options.logger ?? createLogger({ env, defaultMeta: { server: name } });
  const clock = options.clock ?? systemClock;
  const transport = transportConfigFromEnv(env, options.transport);
  const http = httpSecurityFromEnv(env, { ...options.http, ...(options.auth ? { auth: options.auth } : {}) });
  const instance = options.instance ?? new ServerClass();

  const plugins = [
    ...(options.replaceBuiltinPlugins ? [] : BUILTIN_TRIGGER_PLUGINS),
    ...(options.plugins ?? []),
  ];
  const triggers = buildTriggerRegistry(plugins, definition.triggers, instance, ServerClass.name);

  const posterOptions = { clock, logger: logger.child({ component: 'poster' }), ...options.poster };
  const poster = options.eventTransport
    ? new EventPoster({ serverName: name, transport: options.eventTransport, ...posterOptions })
    : EventPoster.fromEnv(name, { env, ...posterOptions });
  const taskManager = new TaskManager({
    serverName: name,
    poster,
    triggers,
    clock,
    logger: logger.child({ component: 'tasks' }),
    ...options.tasks,
  });

  const schemas = new DtoSchemaBuilder();
  const starter = new TaskStarter(taskManager);
  const storeSetting = taskStoreSetting(env, options.store);
  const stored = storeSetting
    ? new TaskStoreBridge({
        taskManager,
        starter,
        poster,
        serverName: name,
        logger: logger.child({ component: 'task-store' }),
        open: () => openTaskStore(storeSetting, logger.child({ component: 'task-store' })),
      })
    : undefined;
  const triggerTypes = triggers.list().map((t) => ({ type: t.type, description: t.description }));
  const context: FeatureContext = {
    definition,
    instance,
    env,
    taskManager,
    poster,
    starter,
    triggers,
    schemas,
    logger,
    clock,
    options: options as Readonly<Record<string, unknown>>,
    ...(stored ? { stored } : {}),
  };
  const features = options.features ?? BUILTIN_FEATURES;
  let tools = [
    ...createDecoratedTools(definition.tools, {
      instance,
      schemas,
      starter,
      taskManager,
      triggerTypes,
      logger,
    }),
    ...createReconciliationTools(taskManager, schemas, stored),
    ...features.flatMap((feature) => feature.tools?.(context) ?? []),
  ];
  for (const feature of features) if (feature.filterTools) tools = feature.filterTools(tools, context);
  const extensions = [
    ...features
      .map((feature) => feature.extension?.(context))
      .filter((e): e is AppExtension => e !== undefined),
    ...(options.extensions ?? []),
  ];
  return new RobotMcpApp({
    definition,
    instance,
    taskManager,
    poster,
    triggers,
    registry: new ToolRegistry(tools),
    starter,
    logger,
    transport,
    http,
    extensions: extensions,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    env,
    clock,
    ...(stored ? { stored } : {}),
  });
}
