import { type ToolCall } from '../tools/registered-tool.js';

/**
 * What one MCP 2026-07-28 `tools/call` round carries for a multi-round-trip request (SEP-2322):
 * the answers to the server's earlier `inputRequests`, the `requestState` echoed back, and whether
 * the request's client capabilities declare elicitation. The 2025 sessions carry none (they ask
 * with a server-to-client `elicitation/create` instead).
 */
export interface InputRound {
  /** `inputResponses` of a retried request (untrusted client input), keyed as the server asked. */
  readonly responses?: Readonly<Record<string, unknown>>;
  /** The raw `requestState` the client echoed (attacker-controlled until verified). */
  readonly state?: string;
  /** The request's `clientCapabilities` declare `elicitation` (form mode). */
  readonly canElicit: boolean;
}

/** The {@link ToolCall.tags} key of the call's {@link InputRound} (set on the 2026-07-28 leg only). */
export const INPUT_ROUND = Symbol('robot-mcp-kit.input-round');

/** The round of a 2026-07-28 call; undefined on the 2025 sessions. */
export function inputRoundOf(call: ToolCall): InputRound | undefined {
  return call.tags?.get(INPUT_ROUND) as InputRound | undefined;
}

/** The same call without its round, for what runs after the decision (tags reach the task origin). */
export function withoutInputRound(call: ToolCall): ToolCall {
  if (!call.tags?.has(INPUT_ROUND)) return call;
  const tags = new Map(call.tags);
  tags.delete(INPUT_ROUND);
  return { ...call, tags };
}
