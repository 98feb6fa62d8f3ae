import { isJsonObject, type JsonObject, RobotMcpKitError } from '@robot-mcp-kit/core';

/** A reconciliation tool call whose answer cannot be used. */
export class ReconcileToolError extends RobotMcpKitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RECONCILE_TOOL_FAILED', message, options);
  }
}

/**
 * The JSON object a reconciliation tool returned as text content (spec §3.3), or its
 * `structuredContent` when it has no text. @throws ReconcileToolError
 */
export function toolResultJson(result: unknown): JsonObject {
  const r = (isJsonObject(result) ? result : {}) as {
    content?: unknown;
    isError?: unknown;
    structuredContent?: unknown;
  };
  const texts = Array.isArray(r.content)
    ? r.content
        .filter(
          (c): c is { type: 'text'; text: string } =>
            isJsonObject(c) && c.type === 'text' && typeof c.text === 'string',
        )
        .map((c) => c.text)
    : [];
  if (r.isError === true) {
    throw new ReconcileToolError(`tool error: ${texts.join(' ').slice(0, 500) || 'no message'}`);
  }
  if (texts.length === 0) {
    if (isJsonObject(r.structuredContent)) return r.structuredContent;
    throw new ReconcileToolError('the result has no text content; expected a JSON string (spec §3.3)');
  }
  let value: unknown;
  try {
    value = JSON.parse(texts.join(''));
  } catch (err) {
    throw new ReconcileToolError(`the result is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isJsonObject(value)) throw new ReconcileToolError('the result is JSON but not an object');
  return value;
}
