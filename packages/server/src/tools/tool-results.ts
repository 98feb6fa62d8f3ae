import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RobotMcpKitError, type TaskInfo, isJsonObject } from '@robot-mcp-kit/core';

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

/** Turns what a `@Tool` method returned into a CallToolResult. */
export function normalizeToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (isCallToolResult(value)) return value;
  if (isJsonObject(value))
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return isJsonObject(value) && Array.isArray(value.content);
}
