import {
  type Clock,
  createLogger,
  EventPoster,
  type EventTransport,
  type Logger,
  type LoggerOptions,
  systemClock,
  type TaskEvent,
  TaskManager,
  type TriggerRegistry,
} from '@robot-mcp-kit/core';
import { asLogger } from '@robot-mcp-kit/core/host';
import { type EventOutbox } from '@robot-mcp-kit/core/store';
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
import { TaskOwners } from '../auth/task-owners.js';
import { TaskProjection } from '../task-views/task-projection.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { type BuiltinFeatureOptions, builtinFeatures } from '../features/builtin-features.js';
import { replicaIdFrom, StoreEventOutbox } from '../store/store-outbox.js';
import { type Feature, type FeatureContext, type FeatureContribution } from '../runtime/feature.types.js';
import { servicesFor } from '../runtime/feature.define.js';
import { type RegisteredTool } from '../tools/registered-tool.js';
import { type AppExtension, RobotMcpApp } from '../runtime/robot-mcp-app.js';
import { type TransportConfig, transportConfigFromEnv } from '../runtime/server-config.js';
import { type AuthOptions } from '../auth/auth.options.js';
import { type HttpSecurityOptions, httpSecurityFromEnv } from '../transports/http-options.js';
import { openTaskStore, type TaskStoreOption, taskStoreSetting } from '../store/task-store.config.js';
import { TaskStoreBridge } from '../store/task-store.bridge.js';

/** A capability server class (decorated with `@CapabilityServer`). */
export type CapabilityServerClass<T extends object = object> = new (...args: never[]) => T;

/**
 * Options of {@link bootstrap}; everything has a default from the environment. The built-in
 * features' options (read-only mode, allow list, event feed, task resources, native tasks) are here
 * too, each beside its `RMK_*` variable.
 */
export interface BootstrapOptions<T extends object = object> extends BuiltinFeatureOptions {
  /** The server instance; default `new ServerClass()`. Pass one to inject your own dependencies. */
  instance?: T;
  /** Trigger plugins added to the built-ins (progress_above, eta_below, zone_entered). */
  plugins?: readonly TriggerPlugin[];
  /** Replace the built-in plugins instead of adding to them. */
  replaceBuiltinPlugins?: boolean;
  /** Environment to read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * The logger: a kit {@link Logger} as it is, or an author's own winston logger (its level, format
   * and transports; the kit's lines carry `server`). Default `createLogger()` from the environment.
   */
  logger?: Logger;
  /** More winston transports for the default logger (a file, syslog, ...); they get the same lines. */
  logTransports?: LoggerOptions['transports'];
  clock?: Clock;
  /** Where events go; default from `RVC_CALLBACK_URL` / `RVC_EVENT_SECRET` (no-op when unset). */
  eventTransport?: EventTransport;
  /** Poster tuning (queue size, delivery lanes). */
  poster?: { maxQueue?: number; lanes?: number; maxInFlight?: number };
  /** TaskManager tuning (`taskIdRandom`: its id generator port, e.g. a fake forcing clashes in tests). */
  tasks?: {
    maxFinishedRetained?: number;
    cancelGraceMs?: number;
    cancelReplyMs?: number;
    taskIdRandom?: () => string;
  };
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
   * A task store shared by replicas: a Redis URL (`redis://host:port/db`), settings, or
   * a TaskStore of your own. Default from `RMK_STORE` (unset: tasks live in this process only).
   * Connected when the server listens; unreachable Redis fails the start naming the URL.
   */
  store?: TaskStoreOption;
  /**
   * Features to apply instead of the built-in ones (advanced; default `builtinFeatures(options)`,
   * the built-ins configured from these options). The built-in feature options are then ignored.
   */
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
  const defaultMeta = { server: definition.server.name };
  const logger = options.logger
    ? asLogger(options.logger, defaultMeta)
    : createLogger({
        env,
        defaultMeta,
        ...(options.logTransports ? { transports: options.logTransports } : {}),
      });
  const clock = options.clock ?? systemClock;
  const transport = transportConfigFromEnv(env, options.transport);
  const http = httpSecurityFromEnv(env, { ...options.http, ...(options.auth ? { auth: options.auth } : {}) });
  const context = createFeatureContext(ServerClass, { definition, env, logger, clock }, options);
  const contributions = (options.features ?? builtinFeatures(options)).map((feature) =>
    feature.setup(servicesFor(context, feature)),
  );
  const extensions = [
    ...contributions.flatMap((contribution) => (contribution.extension ? [contribution.extension] : [])),
    ...(options.extensions ?? []),
  ];
  const { instance, taskManager, poster, triggers, starter, owners, stored } = context;
  return new RobotMcpApp({
    definition,
    instance,
    taskManager,
    poster,
    triggers,
    registry: new ToolRegistry(composeTools(context, contributions)),
    starter,
    owners,
    logger,
    transport,
    http,
    extensions,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    env,
    clock,
    ...(stored ? { stored } : {}),
  });
}

/**
 * What every feature is set up with: the server instance, its trigger registry, the task engine
 * (TaskManager and EventPoster, with the task store and its outbox when one is configured), the
 * task owners and starter, and the DTO schema builder.
 */
function createFeatureContext<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  base: Pick<FeatureContext, 'definition' | 'env' | 'logger' | 'clock'>,
  options: BootstrapOptions<T>,
): FeatureContext {
  const { definition, env, logger, clock } = base;
  const name = definition.server.name;
  const instance = options.instance ?? new ServerClass();
  const plugins = [
    ...(options.replaceBuiltinPlugins ? [] : BUILTIN_TRIGGER_PLUGINS),
    ...(options.plugins ?? []),
  ];
  const triggers = buildTriggerRegistry(plugins, definition.triggers, instance, ServerClass.name);
  const given = taskStoreSetting(env, options.store);
  // one replica id for the task store and the outbox
  const storeSetting =
    given && !('put' in given) ? { ...given, replicaId: replicaIdFrom(given, env) } : given;
  const late: { stored?: TaskStoreBridge } = {}; // the bridge needs the poster, the outbox the bridge
  const outbox = createStoreOutbox(storeSetting, {
    serverName: name,
    replicaId: storeSetting && !('put' in storeSetting) ? storeSetting.replicaId : '',
    seqs: {
      seqStored: (taskId, seq, waitMs) => late.stored?.seqStored(taskId, seq, waitMs) ?? Promise.resolve(),
      fencingToken: () => late.stored?.fencingToken(),
      carryAppend: (taskId, append) => late.stored?.carryAppend(taskId, append),
    },
    logger: logger.child({ component: 'outbox' }),
  });
  // with a store, an event is sent once its seq is stored, and not while this replica's lease is in
  // doubt (after a pause) or gone
  const deliveryGate = storeSetting
    ? (event: TaskEvent) => late.stored?.mayDeliver(event) ?? Promise.resolve(true)
    : undefined;
  const { poster, taskManager } = createTaskEngine(
    name,
    {
      env,
      clock,
      logger,
      triggers,
      outbox,
      deliveryGate,
      replicaId: storeSetting && !('put' in storeSetting) ? storeSetting.replicaId : undefined,
    },
    options,
  );
  const projection = new TaskProjection(taskManager); // the app's one, handed to every reader
  const owners = new TaskOwners(projection);
  owners.observe(logger);
  const starter = new TaskStarter(taskManager, owners);
  const stored = (late.stored = createStoreBridge(storeSetting, {
    taskManager,
    starter,
    poster,
    serverName: name,
    logger: logger.child({ component: 'task-store' }),
    ...(outbox ? { takeOverFrom: (replicaId: string) => outbox.takeOverFrom(replicaId) } : {}),
  }));
  const schemas = new DtoSchemaBuilder();
  return {
    ...base,
    instance,
    taskManager,
    projection,
    poster,
    starter,
    owners,
    triggers,
    schemas,
    ...(stored ? { stored } : {}),
  };
}

/**
 * The offered tools: the decorated ones, the reconciliation tools and the features' tools, then
 * narrowed or wrapped by each feature's `filterTools`, in list order.
 */
function composeTools(ctx: FeatureContext, contributions: readonly FeatureContribution[]): RegisteredTool[] {
  const { definition, instance, schemas, starter, taskManager, logger } = ctx;
  const triggerTypes = ctx.triggers.list().map((t) => ({ type: t.type, description: t.description }));
  let tools = [
    ...createDecoratedTools(definition.tools, {
      instance,
      schemas,
      starter,
      taskManager,
      triggerTypes,
      logger,
    }),
    ...createReconciliationTools(taskManager, schemas, ctx.stored, ctx.owners),
    ...contributions.flatMap((contribution) => contribution.tools ?? []),
  ];
  for (const { filterTools } of contributions) if (filterTools) tools = filterTools(tools);
  return tools;
}

/** The event poster (from `eventTransport` or the environment) and the task manager feeding it. */
function createTaskEngine(
  serverName: string,
  deps: {
    env: NodeJS.ProcessEnv;
    clock: Clock;
    logger: Logger;
    triggers: TriggerRegistry;
    outbox: EventOutbox | undefined;
    deliveryGate: ((event: TaskEvent) => Promise<boolean>) | undefined;
    /** The replica's id with a shared store: the task spans' `robot_mcp_kit.replica.id`. */
    replicaId: string | undefined;
  },
  options: Pick<BootstrapOptions, 'eventTransport' | 'poster' | 'tasks'>,
): { poster: EventPoster; taskManager: TaskManager } {
  const { env, clock, logger, triggers, outbox, deliveryGate, replicaId } = deps;
  const posterOptions = {
    clock,
    logger: logger.child({ component: 'poster' }),
    ...options.poster,
    ...(outbox ? { outbox } : {}),
    ...(deliveryGate ? { deliveryGate } : {}),
  };
  const poster = options.eventTransport
    ? new EventPoster({ serverName, transport: options.eventTransport, ...posterOptions })
    : EventPoster.fromEnv(serverName, { env, ...posterOptions });
  const taskManager = new TaskManager({
    serverName,
    poster,
    triggers,
    clock,
    logger: logger.child({ component: 'tasks' }),
    ...(replicaId ? { replicaId } : {}),
    ...options.tasks,
  });
  return { poster, taskManager };
}

/** The bridge to the task store shared by replicas, when one is configured (`RMK_STORE`, `store`). */
function createStoreBridge(
  setting: ReturnType<typeof taskStoreSetting>,
  deps: Omit<ConstructorParameters<typeof TaskStoreBridge>[0], 'open'>,
): TaskStoreBridge | undefined {
  if (!setting) return undefined;
  return new TaskStoreBridge({ ...deps, open: () => openTaskStore(setting, deps.logger) });
}

/**
 * The durable event outbox of a Redis task store (`RMK_STORE` as a URL): events survive the process
 * and a survivor delivers a dead replica's. None with a TaskStore object of your own, or no store.
 */
function createStoreOutbox(
  setting: ReturnType<typeof taskStoreSetting>,
  deps: ConstructorParameters<typeof StoreEventOutbox>[1],
): StoreEventOutbox | undefined {
  if (!setting || 'put' in setting) return undefined;
  return new StoreEventOutbox(setting, deps);
}
