import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type RegisteredTool } from '../../tools/registered-tool.js';
import { taskUri } from '../../task-views/task-resources.catalog.js';

/**
 * The long-running tools with a `resource_link` to `tasks://{task_id}` after their TaskInfo text:
 * a client that shows resources (the Inspector, Claude) can open or subscribe to the task from the
 * answer. Errors and other tools pass through unchanged.
 */
export function withTaskLinks(tools: readonly RegisteredTool[]): RegisteredTool[] {
  return tools.map((tool) =>
    tool.longRunning
      ? { ...tool, call: async (args, call) => linkTask(await tool.call(args, call), tool.name) }
      : tool,
  );
}

function linkTask(result: CallToolResult, tool: string): CallToolResult {
  const taskId = (result.structuredContent as { task_id?: unknown } | undefined)?.task_id;
  if (result.isError || typeof taskId !== 'string') return result;
  return {
    ...result,
    content: [
      ...result.content,
      {
        type: 'resource_link',
        uri: taskUri(taskId),
        name: taskId,
        title: `${tool} task ${taskId}`,
        description: 'The TaskInfo JSON of this task; read it, or subscribe for changes',
        mimeType: 'application/json',
      },
    ],
  };
}
