import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import { jsonLimitProblem } from '@robot-mcp-kit/core/support';
import { type MessageStage } from '../transports/message-pipeline.transport.js';

/** Longest error message sent: caller input echoed in an error stays a short prefix. */
export const MAX_ERROR_MESSAGE_CHARS = 1000;

const SDK_PREFIX = /^(?:MCP error -?\d+: )+/;
/** The first protocol version with tasks (SEP-1686). Versions are dates, so they sort as strings. */
export const TASKS_PROTOCOL_VERSION = '2025-11-25';

/**
 * The kit's JSON-RPC guard, one {@link MessageStage} below the SDK on both generations (2025
 * sessions, 2026-07-28 stdio and HTTP exchanges):
 *
 * - every request's `params` pass the kit's JSON safety check (`JSON_LIMITS.params` of
 *   `@robot-mcp-kit/core/support`: depth, size, and no `__proto__`,
 *   `constructor` or `prototype` key at any depth) on the message as parsed from the wire, before
 *   the SDK's schemas rebuild it (which silently drops a top-level `"__proto__"` argument). A
 *   refused request gets a -32602 error naming the field and reaches no handler, so nothing starts;
 * - every error response leaves without the SDK's `MCP error <code>: ` prefix in its message (the
 *   client adds its own) and cut to {@link MAX_ERROR_MESSAGE_CHARS};
 * - the initialize result advertises the `tasks` capability only when the negotiated protocol
 *   version has tasks ({@link TASKS_PROTOCOL_VERSION} or later).
 */
export function jsonGuardStage(logger: Logger): MessageStage {
  return {
    inbound(message, next, reply) {
      const problem = problemOf(message);
      if (problem === undefined) return next();
      if (!('id' in message) || !('method' in message)) {
        logger.debug('dropped a notification with unsafe params', { problem });
        return;
      }
      reply({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` },
      });
    },
    outbound: (message) => withNegotiatedCapabilities(withCleanError(message)),
  };
}

function problemOf(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || message.params === undefined) return undefined;
  return jsonLimitProblem('params', message.params, 'params');
}

/** An initialize result without the `tasks` capability when the negotiated version predates tasks. */
export function withNegotiatedCapabilities(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message)) return message;
  const result = message.result as { protocolVersion?: unknown; capabilities?: Record<string, unknown> };
  if (typeof result.protocolVersion !== 'string' || !result.capabilities || !('tasks' in result.capabilities))
    return message;
  if (result.protocolVersion >= TASKS_PROTOCOL_VERSION) return message;
  const { tasks: _tasks, ...capabilities } = result.capabilities;
  return { ...message, result: { ...message.result, capabilities } };
}

/** An error response's message without the SDK's prefix and cut short; other messages unchanged. */
export function withCleanError(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || typeof message.error?.message !== 'string') return message;
  const text = cleanErrorMessage(message.error.message);
  return text === message.error.message
    ? message
    : { ...message, error: { ...message.error, message: text } };
}

/** `MCP error -32602: MCP error -32602: x` → `x`, cut to {@link MAX_ERROR_MESSAGE_CHARS}. */
export function cleanErrorMessage(text: string): string {
  const bare = text.replace(SDK_PREFIX, '');
  if (bare.length <= MAX_ERROR_MESSAGE_CHARS) return bare;
  return `${bare.slice(0, MAX_ERROR_MESSAGE_CHARS)}... (${bare.length - MAX_ERROR_MESSAGE_CHARS} more characters)`;
}
