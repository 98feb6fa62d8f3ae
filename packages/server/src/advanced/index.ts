/**
 * Extension points of `@robot-mcp-kit/server`: features and the app they plug into, the HTTP
 * listener and its guards, auth verifiers, trigger plugin loading, schema and scanning helpers. An
 * author of a capability server needs none of these (see the main entry); they are for building
 * features, transports and tools around the kit. Everything here may change in a minor release more
 * readily than the main entry. The kit's internals (tool DTOs, native-task machinery, result
 * builders) are not exported; its own tests import them from the sources.
 *
 * @packageDocumentation
 * @module advanced
 */
import 'reflect-metadata';

// Decorators, their metadata and the scanner
export { METADATA_KEYS } from '../metadata/metadata.keys.js';
export type {
  CapabilityServerDefinition,
  ServerDefinition,
  ToolDefinition,
  PlainToolDefinition,
  LongRunningToolDefinition,
  TriggerDefinition,
} from '../metadata/definitions.types.js';
export { exploreCapabilityServer } from '../scanning/capability-server.explorer.js';
export { RESERVED_TOOL_NAMES } from '@robot-mcp-kit/core/rules';

// Arguments and schemas
export { DtoSchemaBuilder } from '../schema/dto-schema.js';
export type { JsonSchema } from '../schema/dto-schema.js';
export { validateArguments } from '../schema/argument.validator.js';

// Trigger plugins
export { BUILTIN_TRIGGER_PLUGINS, loadTriggerPlugins } from '../plugins/trigger-plugins.js';

// The app, its tools and its features
export { RobotMcpApp } from '../runtime/robot-mcp-app.js';
export type { AppExtension } from '../runtime/robot-mcp-app.js';
export { ToolRegistry } from '../tools/tool-registry.js';
export type { RegisteredTool, ToolCall, SessionContext } from '../tools/registered-tool.js';
export { ActuatorBusyError, TaskStarter } from '../tools/task-starter.js';
export type { ActuatorGate } from '../tools/task-starter.js';
export type { StartRequest, TaskIdReserver } from '../tools/task-starter.js';
export type { Feature, FeatureContext, FeatureContribution, FeatureNeed } from '../runtime/feature.types.js';
export { defineFeature } from '../runtime/feature.define.js';
export type { TaskStoreBridge } from '../store/task-store.bridge.js';
// The session surface features install into (both MCP generations) and the app's one task projection
export type {
  ResourceSource,
  SessionSurface,
  SurfaceCaller,
  SurfaceFeature,
  SurfaceNotifier,
  SurfaceResource,
  SurfaceResourceContents,
  SurfaceResourceTemplate,
  SurfaceProgress,
  SurfaceTaskNotifier,
  TaskCancelOutcome,
  TaskMethodSource,
  TaskView,
  TaskViewPage,
} from '../surface/session-surface.port.js';
export type {
  ProjectedChange,
  ProjectedTask,
  ProjectionFilter,
  ProjectionListener,
  ProjectionSource,
  RemoteChange,
  RemoteChangeSource,
  TaskProjection,
} from '../task-views/task-projection.js';
export { builtinFeatures } from '../features/builtin-features.js';
export type { BuiltinFeatureOptions } from '../features/builtin-features.js';
export type { SafetyFeatureOptions } from '../features/safety/safety.options.js';
export type { ConfirmFeatureOptions } from '../features/safety/confirm.feature.js';
export type { SessionCleanupOptions } from '../features/session-cleanup/session-cleanup.options.js';
export type { EventFeedOptions } from '../features/event-feed/event-feed.options.js';
export type { TaskResourcesOptions } from '../features/resources/task-resources.options.js';
export type { NativeTasksFeatureOptions } from '../features/native-tasks/native-tasks.feature.js';
export { toolPolicyFeature } from '../features/safety/tool-policy.feature.js';
export { sessionCleanupFeature } from '../features/session-cleanup/session-cleanup.feature.js';
export { eventFeedFeature, eventFeedOf } from '../features/event-feed/event-feed.feature.js';
export type { EventFeedExtension } from '../features/event-feed/event-feed.feature.js';
export type { EventFeed, FeedPage, WaitRequest, WaitOutcome } from '../features/event-feed/event-feed.js';
export type {
  FeedEntry,
  FeedItem,
  FeedFilter,
  EventEntry,
  CancelledEntry,
  LostEntry,
  UnrecognisedTriggersEntry,
} from '../features/event-feed/feed-entry.js';
export { taskResourcesFeature } from '../features/resources/task-resources.feature.js';
export { nativeTasksFeature } from '../features/native-tasks/native-tasks.feature.js';
export { NATIVE_TASKS_DEFAULTS } from '../features/native-tasks/native-tasks.options.js';
export type {
  NativeTasksOptions,
  ResolvedNativeTasksOptions,
} from '../features/native-tasks/native-tasks.options.js';

// Configuration and the HTTP listener
export { checkLogLevel, transportConfigFromEnv, TRANSPORT_KINDS } from '../runtime/server-config.js';
export type { TransportConfig, TransportKind } from '../runtime/server-config.js';
export { parseServerArgs } from '../bootstrap/run-server.js';
export type { ServerArgs } from '../bootstrap/run-server.js';
export { listenHttp } from '../transports/http-listener.loader.js';
export type { HttpListener, HttpListenerOptions, SessionOpener } from '../transports/http.listener.js';
export type { HttpSecurityConfig, HttpSecurityOptions } from '../transports/http-options.js';
export { checkHostOrigin, hostOriginGuard } from '../transports/host-origin.guard.js';
export type { HostOriginRules } from '../transports/host-origin.guard.js';
export { BoundedEventStore } from '../transports/bounded-event.store.js';
export type { AuthOptions } from '../auth/auth.options.js';
export { StaticTokenVerifier } from '../auth/static-token.verifier.js';
export { JwtAccessTokenVerifier, type JwtVerifierSettings } from '../auth/jwt-access-token.verifier.js';
export {
  DEFAULT_TOOL_SCOPES,
  requiredScopesOf,
  type ScopedTool,
  type ToolScopeNames,
} from '../auth/tool-scopes.js';
export type { TaskOwner, TaskOwners } from '../auth/task-owners.js';
