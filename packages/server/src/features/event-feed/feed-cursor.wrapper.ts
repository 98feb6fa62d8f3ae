import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '@robot-mcp-kit/core';
import { type RegisteredTool, type SessionContext, type ToolCall } from '../../tools/registered-tool.js';

/** The field of a tool's TaskInfo answer that holds the task's feed cursor. */
export const FEED_CURSOR_FIELD = 'feed_cursor';

/**
 * Adds `feed_cursor` to the TaskInfo a long-running tool and get_task answer (text and
 * `structuredContent` alike): the event feed cursor right before the task's first entry, to pass as
 * `since` to wait_for_event or get_events so that nothing of the task is missed, whichever session
 * reads it. Only these MCP answers carry it: the events pushed to the app (spec §3) do not change.
 * Other tools, tool errors and tasks the feed did not see start pass through as they are.
 * `callEnded` hears the end of each start (the event feed hands a sessionless request's start
 * cursor on to its caller there).
 */
export function withFeedCursor(
  tool: RegisteredTool,
  cursorOf: (taskId: string) => number | undefined,
  callEnded: (session: SessionContext) => void = () => undefined,
): RegisteredTool {
  if (tool.start === undefined && tool.name !== 'get_task') return tool;
  const { start } = tool;
  return {
    ...tool,
    async call(args, call) {
      try {
        return addFeedCursor(await tool.call(args, call), cursorOf);
      } finally {
        callEnded(call.session);
      }
    },
    ...(start && {
      async start(args: unknown, call: ToolCall) {
        try {
          return await start.call(tool, args, call);
        } finally {
          callEnded(call.session);
        }
      },
    }),
  };
}

function addFeedCursor(
  result: CallToolResult,
  cursorOf: (taskId: string) => number | undefined,
): CallToolResult {
  const [first, ...rest] = result.content;
  if (result.isError || first?.type !== 'text') return result;
  const info = taskInfoOf(result, first.text);
  const cursor = typeof info?.task_id === 'string' ? cursorOf(info.task_id) : undefined;
  if (!info || cursor === undefined) return result;
  const structured = result.structuredContent;
  return {
    ...result,
    content: [{ ...first, text: JSON.stringify({ ...info, [FEED_CURSOR_FIELD]: cursor }) }, ...rest],
    ...(structured?.task_id === info.task_id
      ? { structuredContent: { ...structured, [FEED_CURSOR_FIELD]: cursor } }
      : {}),
  };
}

/**
 * The TaskInfo of an answer. A task answer's `structuredContent` is the object its text is the
 * JSON of (taskInfoResult writes both from one object), so it is taken as it is: parsing the text
 * back cost each task start a JSON.parse of its own answer. An answer without a structured TaskInfo
 * (a text-only answer) is parsed from its text, as before.
 */
function taskInfoOf(result: CallToolResult, text: string): Record<string, unknown> | undefined {
  const structured = result.structuredContent;
  if (structured !== undefined && typeof structured.task_id === 'string') return structured;
  return parseObject(text);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
