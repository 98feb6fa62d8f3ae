/**
 * The authoring surface of `@robot-mcp-kit/server`: everything an author of a capability server
 * imports. Decorate a class, describe arguments with DTO classes, throw the kit's errors, write
 * trigger plugins, and start it with {@link runServer} (or {@link bootstrap} in tests).
 *
 * Test helpers are under `@robot-mcp-kit/server/testing`; extension points (features, transports,
 * guards, registries) under `@robot-mcp-kit/server/advanced`.
 *
 * @packageDocumentation
 * @module main
 */
import 'reflect-metadata';

// Decorators (they record metadata only) and their arguments
export { CapabilityServer } from './decorators/capability-server.decorator.js';
export { Tool } from './decorators/tool.decorator.js';
export { LongRunningTool } from './decorators/long-running-tool.decorator.js';
export { Trigger } from './decorators/trigger.decorator.js';
export type {
  CapabilityServerArgs,
  ToolArgs,
  LongRunningToolArgs,
  TriggerArgs,
  ToolAnnotationsArgs,
  DtoClass,
  ToolArgsBase,
} from './metadata/decorator-args.types.js';

// Tool arguments: DTO classes checked by class-validator, described by @JSONSchema
export { JSONSchema } from 'class-validator-jsonschema';
export { NoArgs } from './scanning/no-args.dto.js';

// Running a server
export { runServer } from './bootstrap/run-server.js';
export type { RunServerOptions } from './bootstrap/run-server.js';
export { bootstrap } from './bootstrap/bootstrap.js';
export type { BootstrapOptions, CapabilityServerClass } from './bootstrap/bootstrap.js';
export type { RobotMcpApp, ListenInfo } from './runtime/robot-mcp-app.js';
export type { TaskStoreOption, TaskStoreSettings } from './store/task-store.config.js';

// What a tool body is given
export type { TaskContext, JsonObject, TaskInfo } from '@robot-mcp-kit/core';
export type { ToolCallContext } from './tools/decorated-tools.factory.js';

// Errors a body throws, or an author catches
export {
  TaskError,
  TaskCancelledError,
  RobotMcpKitError,
  ConfigError,
  TriggerValidationError,
} from '@robot-mcp-kit/core';
export { TaskArgumentError } from '@robot-mcp-kit/core/host';
export type { TaskErrorOptions } from '@robot-mcp-kit/core';
export { DecorationError, ToolArgumentsError } from './errors/server.error.js';

// Trigger plugins
export type { TriggerPlugin } from './plugins/trigger-plugins.js';
export type { Trigger as TriggerSpec } from '@robot-mcp-kit/core';
