import { ErrorCode, McpError, type TaskStatus } from '@modelcontextprotocol/sdk/types.js';
import { shortText } from '@robot-mcp-kit/core/rules';

/**
 * The errors of the SEP-1686 task methods (MCP 2025-11-25: tasks/get, tasks/result, tasks/list,
 * tasks/cancel). They extend the v1 SDK's McpError because the SDK answers with an error's numeric
 * `code`; the SEP-2663 leg answers its own not-found error (`sdk-v2.session-surface.ts`).
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
