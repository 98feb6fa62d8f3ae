import { type CallToolResult, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { type TaskInfo } from '@robot-mcp-kit/core';

/** The `_meta` that ties a message to a protocol task. */
export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META_KEY]: { taskId } };
}

/**
 * The tasks/result of a finished task — what the tool call would have returned had it waited:
 * - succeeded: the result object as JSON text plus `structuredContent`;
 * - failed: `isError: true` with the TaskFailure JSON (text and structured);
 * - cancelled: `isError: true` with the task's TaskInfo JSON (state `cancelled`, last progress).
 * Every one carries the related-task `_meta`.
 */
export function taskPayloadResult(info: TaskInfo): CallToolResult {
  const _meta = relatedTaskMeta(info.task_id);
  switch (info.state) {
    case 'succeeded': {
      const result = (info.result ?? {}) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, _meta };
    }
    case 'failed': {
      const failure = (info.failure?.toJSON() ?? {
        error_code: 'INTERNAL',
        message: 'The task failed without a recorded failure.',
        recoverable: false,
        suggestions: [],
      }) as unknown as Record<string, unknown>;
      return errorPayload(failure, _meta);
    }
    case 'cancelled':
      return errorPayload(info.toJSON() as unknown as Record<string, unknown>, _meta);
    default:
      throw new Error(`task ${info.task_id} is still ${info.state}; it has no result yet`);
  }
}

function errorPayload(body: Record<string, unknown>, _meta: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
    isError: true,
    _meta,
  };
}
