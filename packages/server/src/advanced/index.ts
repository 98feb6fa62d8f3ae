/**
 * Extension points of `@robot-mcp-kit/server`: features, transports and their options, the HTTP
 * listener and guards, auth verifiers, registries, the native-task (SEP-1686) machinery, schema and
 * scanning helpers. An author of a capability server needs none of these (see the main entry);
 * they are for building features, transports and tools around the kit. Everything here may change
 * in a minor release more readily than the main entry.
 *
 * @packageDocumentation
 * @module advanced
 */
import 'reflect-metadata';

// Decorators and their metadata
export { METADATA_KEYS } from '../metadata/metadata.keys.js';
export type {
  CapabilityServerDefinition,
  ServerDefinition,
  ToolDefinition,
  PlainToolDefinition,
  LongRunningToolDefinition,
  TriggerDefinition,
} from '../metadata/definitions.types.js';

// Scanning
export { exploreCapabilityServer } from '../scanning/capability-server.explorer.js';
export { scanMethodNames } from '../scanning/method.scanner.js';
export { RESERVED_TOOL_NAMES } from '@robot-mcp-kit/core';

// Arguments and schemas
export { DtoSchemaBuilder } from '../schema/dto-schema.js';
export type { JsonSchema } from '../schema/dto-schema.js';
export { validateArguments } from '../schema/argument.validator.js';

// Trigger plugins
export { BUILTIN_TRIGGER_PLUGINS, loadTriggerPlugins } from '../plugins/trigger-plugins.js';

// Tools
export { ToolRegistry } from '../tools/tool-registry.js';
export type { RegisteredTool, ToolCall, SessionContext } from '../tools/registered-tool.js';
export { TaskStarter, ConcurrencyLimitError, ShuttingDownError } from '../tools/task-starter.js';
export { GetTaskArgs, CancelTaskArgs, ListTasksArgs } from '../tools/reconciliation.tools.js';
export { MAX_LIST_BYTES, MAX_LIST_LIMIT } from '../tools/task-list.pager.js';
export { jsonTextResult, taskInfoResult, toolErrorResult } from '../tools/tool-results.js';

// Runtime
export { RobotMcpApp } from '../runtime/robot-mcp-app.js';
export type { AppExtension } from '../runtime/robot-mcp-app.js';
export type { Feature, FeatureContext, FeatureContribution } from '../runtime/feature.types.js';
export { builtinFeatures } from '../features/builtin-features.js';
export { checkLogLevel, transportConfigFromEnv, TRANSPORT_KINDS } from '../runtime/server-config.js';
export type { TransportConfig, TransportKind } from '../runtime/server-config.js';
export { listenHttp } from '../transports/http-listener.loader.js';
export type { HttpListener, SessionOpener } from '../transports/http.listener.js';
export {
  checkExposure,
  httpSecurityFromEnv,
  isLoopbackAddress,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_S,
} from '../transports/http-options.js';
export type { HttpSecurityConfig, HttpSecurityOptions } from '../transports/http-options.js';
export { checkHostOrigin, hostOriginGuard } from '../transports/host-origin.guard.js';
export type { HostOriginRules } from '../transports/host-origin.guard.js';
export {
  BoundedEventStore,
  EVENT_STORE_MAX_BYTES,
  EVENT_STORE_MAX_EVENTS,
} from '../transports/bounded-event.store.js';
export type { AuthOptions } from '../auth/auth.options.js';
export { StaticTokenVerifier, STATIC_TOKEN_PRINCIPAL } from '../auth/static-token.verifier.js';
export { TaskPrincipals } from '../auth/task-principals.js';

// Safety, clean exit, event feed and task resources (built-in features)
export type {
  BuiltinFeatureOptions,
  SafetyFeatureOptions,
  EventFeedOptions,
  TaskResourcesOptions,
} from '../features/feature-options.js';
export {
  toolPolicyFeature,
  resolveToolPolicy,
  actsOnTheWorld,
} from '../features/safety/tool-policy.feature.js';
export type { ToolPolicy } from '../features/safety/tool-policy.feature.js';
export { compileGlob, parseToolPatterns } from '../features/safety/tool-patterns.js';
export type { ToolPattern } from '../features/safety/tool-patterns.js';
export {
  sessionCleanupFeature,
  cancelSessionTasks,
  resolveKeepTasks,
  disconnectPolicy,
  SESSION_CLEANUP_DEADLINE_MS,
} from '../features/session-cleanup.feature.js';
export type { KeepTasksPolicy, DisconnectPolicy } from '../features/session-cleanup.feature.js';
export {
  eventFeedFeature,
  eventFeedOf,
  resolveEventFeedConfig,
  DEFAULT_EVENT_BUFFER,
} from '../features/event-feed/event-feed.feature.js';
export type { EventFeedConfig, EventFeedExtension } from '../features/event-feed/event-feed.feature.js';
export { EventFeed, FeedCursorError } from '../features/event-feed/event-feed.js';
export type { FeedPage, WaitRequest, WaitOutcome } from '../features/event-feed/event-feed.js';
export type {
  FeedEntry,
  FeedItem,
  FeedFilter,
  EventEntry,
  CancelledEntry,
  LostEntry,
  UnrecognisedTriggersEntry,
} from '../features/event-feed/feed-entry.js';
export type { FeedToolsDeps } from '../features/event-feed/event-feed.tools.js';
export {
  createEventFeedTools,
  GetEventsArgs,
  WaitForEventArgs,
  WaitEndedError,
  MAX_WAIT_S,
  DEFAULT_WAIT_S,
} from '../features/event-feed/event-feed.tools.js';
export {
  taskResourcesFeature,
  TaskResourceHub,
  RUNNING_TASKS_URI,
  TASK_URI_TEMPLATE,
  taskUri,
} from '../features/resources/task-resources.feature.js';
export { UpdateCoalescer } from '../features/resources/update-coalescer.js';
export type { StartRequest, TaskStartedListener } from '../tools/task-starter.js';
export { parseServerArgs } from '../runtime/run-server.js';
export type { ServerArgs } from '../runtime/run-server.js';
export { sessionIdleMsFromEnv } from '../transports/http-options.js';
export type { HttpListenerOptions } from '../transports/http.listener.js';

// Native MCP tasks (SEP-1686), progress notifications (built-in feature)
export { nativeTasksFeature } from '../features/native-tasks/native-tasks.feature.js';
export {
  NATIVE_TASKS_DEFAULTS,
  resolveNativeTasksOptions,
  grantedTtl,
} from '../features/native-tasks/native-tasks.options.js';
export type {
  NativeTasksOptions,
  ResolvedNativeTasksOptions,
} from '../features/native-tasks/native-tasks.options.js';
export { NativeTaskService } from '../features/native-tasks/native-task.service.js';
export type { NativeTaskServiceDeps } from '../features/native-tasks/native-task.service.js';
export { NativeTaskIndex } from '../features/native-tasks/native-task.index.js';
export type { NativeTaskEntry, NativeTaskPage } from '../features/native-tasks/native-task.index.js';
export {
  installTaskRequestHandlers,
  TaskRequests,
  TASKS_CAPABILITY,
} from '../features/native-tasks/task-requests.handlers.js';
export { withTaskSupport } from '../features/native-tasks/task-tool.wrapper.js';
export {
  PROTOCOL_STATUS,
  progressSummary,
  statusMessageOf,
  toProtocolTask,
  progressValues,
} from '../features/native-tasks/task-status.mapper.js';
export type { TaskRetention } from '../features/native-tasks/task-status.mapper.js';
export { taskPayloadResult, relatedTaskMeta } from '../features/native-tasks/task-payload.builder.js';
export {
  UnknownTaskError,
  InvalidTaskCursorError,
  TaskNotCancellableError,
  TaskWaitAbortedError,
  TaskStartError,
} from '../features/native-tasks/native-task.errors.js';
