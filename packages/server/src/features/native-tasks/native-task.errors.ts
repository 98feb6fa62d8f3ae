import { ErrorCode, McpError, type TaskStatus } from '@modelcontextprotocol/sdk/types.js';
import { RobotMcpKitError, TriggerValidationError } from '@robot-mcp-kit/core';
import { shortText } from '@robot-mcp-kit/core/rules';
import { ToolArgumentsError } from '../../errors/server.error.js';

/**
 * The protocol errors of the tasks/* methods. They extend the SDK's McpError (not
 * RobotMcpKitError) because the SDK answers with an error's numeric `code`.
 */

/** tasks/get|result|cancel with an id this session cannot see: -32602 (Invalid params). */
export class UnknownTaskError extends McpError {
  constructor(taskId: string) {
    super(
      ErrorCode.InvalidParams,
      `taskId ${JSON.stringify(shortText(taskId, 64))} is not a task of this session (unknown, started on another ` +
        'session, or expired); use a taskId from a CreateTaskResult or tasks/list of this session',
    );
  }
}

/** tasks/list with a cursor it did not hand out: -32602 (Invalid params). */
export class InvalidTaskCursorError extends McpError {
  constructor(cursor: string) {
    super(
      ErrorCode.InvalidParams,
      `cursor ${JSON.stringify(shortText(cursor, 64))} is not a tasks/list cursor; pass the nextCursor of the previous page, ` +
        'or no cursor for the first page',
    );
  }
}

/** tasks/cancel of a task that already finished: -32602 (Invalid params), its status is unchanged. */
export class TaskNotCancellableError extends McpError {
  constructor(taskId: string, status: TaskStatus) {
    super(
      ErrorCode.InvalidParams,
      `task ${taskId} is already ${status} and cannot be cancelled; only a working task can be cancelled`,
    );
  }
}

/** tasks/result abandoned because the request was cancelled or its session closed. */
export class TaskWaitAbortedError extends McpError {
  constructor(taskId: string) {
    super(
      ErrorCode.InvalidRequest,
      `stopped waiting for the result of task ${taskId}: the request was cancelled`,
    );
  }
}

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
