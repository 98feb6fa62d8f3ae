import 'reflect-metadata';

// Decorators (record metadata only)
export { CapabilityServer } from './decorators/capability-server.decorator.js';
export { Tool } from './decorators/tool.decorator.js';
export { LongRunningTool } from './decorators/long-running-tool.decorator.js';
export { Trigger } from './decorators/trigger.decorator.js';
export { METADATA_KEYS } from './metadata/metadata.keys.js';
export type {
  CapabilityServerArgs,
  ToolArgs,
  LongRunningToolArgs,
  TriggerArgs,
  ToolAnnotationsArgs,
  DtoClass,
} from './metadata/decorator-args.types.js';
export type {
  CapabilityServerDefinition,
  ServerDefinition,
  ToolDefinition,
  PlainToolDefinition,
  LongRunningToolDefinition,
  TriggerDefinition,
} from './metadata/definitions.types.js';

// Scanning
export { exploreCapabilityServer } from './scanning/capability-server.explorer.js';
export { scanMethodNames } from './scanning/method.scanner.js';
export { RESERVED_TOOL_NAMES } from './scanning/tool.explorer.js';

// Arguments and schemas
export { DtoSchemaBuilder } from './schema/dto-schema.js';
export type { JsonSchema } from './schema/dto-schema.js';
export { validateArguments } from './schema/argument.validator.js';
export { JSONSchema } from 'class-validator-jsonschema';

// Trigger plugins
export {
  BUILTIN_TRIGGER_PLUGINS,
  buildTriggerRegistry,
  loadTriggerPlugins,
} from './plugins/trigger-plugins.js';
export type { TriggerPlugin } from './plugins/trigger-plugins.js';

// Tools
export { ToolRegistry } from './tools/tool-registry.js';
export type { RegisteredTool, ToolCall, SessionContext } from './tools/registered-tool.js';
export type { ToolCallContext } from './tools/decorated-tools.factory.js';
export { TaskStarter, ConcurrencyLimitError, ShuttingDownError } from './tools/task-starter.js';
export { GetTaskArgs, CancelTaskArgs, ListTasksArgs } from './tools/reconciliation.tools.js';
export { jsonTextResult, taskInfoResult, toolErrorResult } from './tools/tool-results.js';

// Runtime
export { bootstrap } from './runtime/bootstrap.js';
export type { BootstrapOptions, CapabilityServerClass } from './runtime/bootstrap.js';
export { runServer } from './runtime/run-server.js';
export type { RunServerOptions } from './runtime/run-server.js';
export { RobotMcpApp } from './runtime/robot-mcp-app.js';
export type { AppExtension, ListenInfo } from './runtime/robot-mcp-app.js';
export type { Feature, FeatureContext } from './runtime/feature.types.js';
export { BUILTIN_FEATURES } from './features/builtin-features.js';
export { transportConfigFromEnv, TRANSPORT_KINDS } from './runtime/server-config.js';
export type { TransportConfig, TransportKind } from './runtime/server-config.js';
export { listenHttp } from './transports/http.listener.js';
export type { HttpListener } from './transports/http.listener.js';

// Errors
export { DecorationError, ToolArgumentsError } from './errors/server.error.js';
