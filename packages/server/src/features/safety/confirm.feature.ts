import { type InputRequiredResult } from '@modelcontextprotocol/server';
import { ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, RobotMcpKitError } from '@robot-mcp-kit/core';
import { scopeOf } from '../../auth/task-owners.js';
import { type Feature, type FeatureContext } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { inputRoundOf, withoutInputRound } from '../../runtime/input-round.js';
import { type RegisteredTool, type ToolCall } from '../../tools/registered-tool.js';
import { toolErrorResult } from '../../tools/tool-results.js';
import { ConfirmRounds, confirmStateKey } from './confirm-rounds.js';

/** The app services this feature uses (all it receives). */
const NEEDS = ['env', 'clock', 'owners', 'logger'] as const;
type ConfirmServices = Pick<FeatureContext, (typeof NEEDS)[number]>;

/** Default wait for a human's answer: 120 s. */
export const DEFAULT_CONFIRM_TIMEOUT_S = 120;

/** Options of the confirmation feature. */
export interface ConfirmFeatureOptions {
  /** How long to wait for the human's answer, in ms (variable `RMK_CONFIRM_TIMEOUT_S`, seconds; default 120). */
  confirmTimeoutMs?: number;
}

/** A tool that needs a human's yes did not get it: nothing started. */
export class NotConfirmedError extends RobotMcpKitError {
  constructor(tool: string, why: string) {
    super('NOT_CONFIRMED', `NOT_CONFIRMED: ${tool} was not started: ${why}`);
  }
}

function timeoutMs(env: NodeJS.ProcessEnv, options: ConfirmFeatureOptions): number {
  if (options.confirmTimeoutMs !== undefined) return options.confirmTimeoutMs;
  const raw = env.RMK_CONFIRM_TIMEOUT_S?.trim();
  if (!raw) return DEFAULT_CONFIRM_TIMEOUT_S * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new ConfigError(
      'RMK_CONFIRM_TIMEOUT_S',
      `"${raw}" is not valid; use seconds from 1 to 3600 (default ${DEFAULT_CONFIRM_TIMEOUT_S})`,
    );
  }
  return Math.round(seconds * 1000);
}

/** The message with each `{field}` replaced by that argument (`{arguments}`: all of them, as JSON). */
export function confirmMessage(template: string, args: unknown): string {
  const fields = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, key: string) => {
    if (key === 'arguments') return JSON.stringify(fields);
    return key in fields ? String(JSON.stringify(fields[key])).replace(/^"|"$/g, '') : whole;
  });
}

/** Asks the client's human; resolves when the answer is yes, else with why not. */
async function ask(
  tool: RegisteredTool,
  args: unknown,
  call: ToolCall,
  waitMs: number,
): Promise<string | undefined> {
  const message = confirmMessage(tool.confirm ?? '', args);
  try {
    const answer = await call.extra.sendRequest(
      {
        method: 'elicitation/create',
        params: { message, requestedSchema: { type: 'object', properties: {} } },
      },
      ElicitResultSchema,
      { timeout: waitMs },
    );
    return answer.action === 'accept'
      ? undefined
      : `the confirmation was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (/timed? ?out/i.test(text))
      return `no answer to the confirmation within ${Math.round(waitMs / 1000)} s`;
    return (
      'it needs a human to confirm it and this client cannot ask (no elicitation capability on ' +
      `MCP 2025-11-25; ${text}); use a client that supports elicitation`
    );
  }
}

/** The decision for one call: undefined to run it, a refusal, or the 2026 `input_required` answer. */
type Decision = NotConfirmedError | InputRequiredResult | undefined;

interface Confirmer {
  readonly ctx: ConfirmServices;
  readonly waitMs: number;
  readonly rounds: ConfirmRounds;
}

async function decideOnce(
  tool: RegisteredTool,
  args: unknown,
  call: ToolCall,
  { ctx, waitMs, rounds }: Confirmer,
): Promise<Decision> {
  const principal = scopeOf(ctx.owners.ofSession(call.session.id));
  const round = inputRoundOf(call);
  let why: string | undefined;
  if (round) {
    const message = confirmMessage(tool.confirm ?? '', args);
    const decided = await rounds.decide({ tool: tool.name, message, args, principal, round });
    if (decided.kind === 'ask') return decided.result;
    why = decided.kind === 'refused' ? decided.why : undefined;
  } else {
    why = await ask(tool, args, call, waitMs);
  }
  ctx.logger.info('confirmation', {
    tool: tool.name,
    principal,
    decision: why ? 'refused' : 'confirmed',
    ...(why ? { why } : {}),
  });
  return why ? new NotConfirmedError(tool.name, why) : undefined;
}

function confirming(tool: RegisteredTool, confirmer: Confirmer): RegisteredTool {
  // A 2026-07-28 call that declares tasks may meet both `start` and `call` (a refused start falls
  // back to the plain call): one decision per round, so one answer is used and logged once.
  const decided = new WeakMap<object, Promise<Decision>>();
  const decide = (args: unknown, call: ToolCall): Promise<Decision> => {
    const round = inputRoundOf(call);
    if (!round) return decideOnce(tool, args, call, confirmer);
    const known = decided.get(round) ?? decideOnce(tool, args, call, confirmer);
    decided.set(round, known);
    return known;
  };
  const refusal = (error: NotConfirmedError): CallToolResult =>
    toolErrorResult(error.message, { error_code: error.code, message: error.message });
  const { start, callAsTask } = tool;
  return {
    ...tool,
    async call(args, call) {
      const decision = await decide(args, call);
      if (decision instanceof NotConfirmedError) return refusal(decision);
      // The 2026-07-28 leg answers the `input_required` result as it is (SEP-2322).
      if (decision) return decision as unknown as CallToolResult;
      return tool.call(args, withoutInputRound(call));
    },
    ...(start && {
      async start(args: unknown, call: ToolCall) {
        const decision = await decide(args, call);
        if (decision instanceof NotConfirmedError) throw decision;
        if (decision) throw new NotConfirmedError(tool.name, 'the client is asked first');
        return start.call(tool, args, withoutInputRound(call));
      },
    }),
    ...(callAsTask && {
      async callAsTask(...params: Parameters<NonNullable<RegisteredTool['callAsTask']>>) {
        const decision = await decide(params[0], params[1]);
        if (decision instanceof NotConfirmedError) return refusal(decision) as never;
        return callAsTask.apply(tool, params);
      },
    }),
  };
}

/**
 * Confirmation before actuation: a tool with `confirm` asks the client's human before anything
 * starts — on MCP 2025-11-25 with `elicitation/create`, on 2026-07-28 with an `input_required`
 * round trip ({@link ConfirmRounds}); a decline, a timeout or a client that cannot ask start
 * nothing, and the decision is logged with the principal.
 */
export function confirmFeature(options: ConfirmFeatureOptions = {}): Feature {
  return defineFeature({
    name: 'confirm',
    needs: NEEDS,
    setup(ctx) {
      const waitMs = timeoutMs(ctx.env, options);
      const rounds = new ConfirmRounds(confirmStateKey(ctx.env), waitMs, ctx.clock);
      const confirmer: Confirmer = { ctx, waitMs, rounds };
      return {
        filterTools: (tools) =>
          tools.map((tool) => (tool.confirm !== undefined ? confirming(tool, confirmer) : tool)),
      };
    },
  });
}
