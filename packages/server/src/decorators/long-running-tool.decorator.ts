import { type LongRunningToolArgs } from '../metadata/decorator-args.types.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { recordMethodMetadata } from './decorator.factory.js';

/**
 * A task-starting tool on an async method `(args: SomeDto, ctx: TaskContext) => Promise<object>`.
 * The MCP tool validates the arguments, starts a task and returns its TaskInfo at once; the method
 * body is the task's work.
 */
export function LongRunningTool(args: LongRunningToolArgs): MethodDecorator {
  return recordMethodMetadata(METADATA_KEYS.longRunningTool, args);
}
