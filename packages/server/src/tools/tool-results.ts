import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RobotMcpKitError, type TaskInfo, isJsonObject } from '@robot-mcp-kit/core';
import { toFrozenJsonObject } from '@robot-mcp-kit/core/rules';

/** A tool result holding a JSON string (spec §3.3: reconciliation tools return JSON text). */
export function jsonTextResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/**
 * A kit tool's answer (reconciliation, event feed): what `run` returns, or a thrown error as a tool
 * error with the kit's message (its own errors' text, anything else as `String(err)`).
 */
export async function kitToolResult(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    return toolErrorResult(err instanceof RobotMcpKitError ? err.message : String(err));
  }
}

/** The dual-mode result of a task-starting tool: TaskInfo JSON text plus the same object structured. */
export function taskInfoResult(info: TaskInfo): CallToolResult {
  const json = info.toJSON();
  return {
    content: [{ type: 'text', text: JSON.stringify(json) }],
    structuredContent: json as unknown as Record<string, unknown>,
  };
}

/** An MCP tool error (`isError: true`): the server keeps serving, the LLM reads the text. */
export function toolErrorResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/** What a `@Tool` method returned that cannot be an answer: the author's mistake, with the fix. */
export class ToolResultError extends Error {
  constructor(where: string, what: string) {
    super(
      `@Tool ${where} returned ${what}; return a string, a plain JSON object such as { ok: true } ` +
        '(its JSON is the text and the structuredContent), or a CallToolResult',
    );
    this.name = 'ToolResultError';
  }
}

/**
 * Turns what a `@Tool` method returned into a CallToolResult: a string is the text, a CallToolResult
 * passes through, a plain JSON object is its JSON text and `structuredContent`, another JSON value
 * (an array, a number) its JSON text. `undefined`, `null` and what has no JSON form (a BigInt, a
 * cycle: checked by the same rule as a task body's result, core's `toFrozenJsonObject`) are refused.
 * @param where `Class.method`, for the message
 * @throws ToolResultError saying what to return
 */
export function normalizeToolResult(value: unknown, where: string): CallToolResult {
  if (value === undefined || value === null) throw new ToolResultError(where, String(value));
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (isCallToolResult(value)) return value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) throw new ToolResultError(where, noJsonForm(value));
  if (isJsonObject(value)) return { content: [{ type: 'text', text }], structuredContent: value };
  return { content: [{ type: 'text', text }] };
}

/** Why `value` has no JSON form: for an object, in the words of the task-result rule. */
function noJsonForm(value: unknown): string {
  if (isJsonObject(value)) {
    const check = toFrozenJsonObject(value);
    if (!check.ok) return check.problem.replace(/^got /, '');
  }
  return `${Array.isArray(value) ? 'an array' : `a ${typeof value}`} that is not JSON-serializable`;
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return isJsonObject(value) && Array.isArray(value.content);
}
