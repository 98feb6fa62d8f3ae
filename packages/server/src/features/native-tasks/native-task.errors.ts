import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RobotMcpKitError, TriggerValidationError } from '@robot-mcp-kit/core';
import { ToolArgumentsError } from '../../errors/server.error.js';

/**
 * The protocol error of a task-augmented tools/call (SEP-1686). It extends the SDK's McpError (not
 * RobotMcpKitError) because the SDK answers with an error's numeric `code`. The errors of the
 * tasks/* methods are the task methods' (`task-methods/task-method.errors.ts`).
 */

/**
 * A task-augmented tools/call whose task could not be started: bad arguments or triggers are
 * -32602 (Invalid params); refusals (concurrency limit, shutting down) -32600 (Invalid request);
 * anything else -32603 (Internal error). The message is the one a plain call reports as a tool error.
 */
export class TaskStartError extends McpError {
  constructor(tool: string, cause: unknown) {
    super(startErrorCode(cause), startErrorMessage(tool, cause));
  }
}

function startErrorCode(cause: unknown): number {
  if (cause instanceof ToolArgumentsError || cause instanceof TriggerValidationError)
    return ErrorCode.InvalidParams;
  if (cause instanceof RobotMcpKitError) return ErrorCode.InvalidRequest;
  return ErrorCode.InternalError;
}

function startErrorMessage(tool: string, cause: unknown): string {
  if (cause instanceof RobotMcpKitError) return cause.message;
  return `${tool} failed to start: ${cause instanceof Error ? cause.message : String(cause)}`;
}
