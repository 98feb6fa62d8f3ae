import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Clock } from '@robot-mcp-kit/core';
import { type InputRound } from '../../runtime/input-round.js';
import { replicaSecretFrom } from '../../store/task-store.config.js';

/**
 * The v2 SDK, loaded on the first 2026-07-28 round: a stdio or 2025-only server never loads it
 * (test/runtime/lazy-transports.test.ts), and a 2026 call has loaded it already.
 */
const sdk = () => import('@modelcontextprotocol/server');

/** The key of the confirmation in `inputRequests` / `inputResponses`. */
export const CONFIRM_INPUT_KEY = 'confirm';

/** At most this many used confirmations are remembered (each until its deadline). */
const MAX_USED = 10_000;

/** What the signed `requestState` of a confirmation binds: this call, this principal, a deadline. */
interface ConfirmState {
  /** The tool. */
  readonly t: string;
  /** SHA-256 of the arguments' JSON. */
  readonly a: string;
  /** The principal asked. */
  readonly p: string;
  /** A nonce: each confirmation starts one call. */
  readonly n: string;
  /** The deadline for the answer (the app's clock, ms). */
  readonly until: number;
}

/** The outcome of one 2026-07-28 round: run, refuse (why), or answer `input_required`. */
export type RoundDecision =
  | { readonly kind: 'confirmed' }
  | { readonly kind: 'refused'; readonly why: string }
  | { readonly kind: 'ask'; readonly result: InputRequiredResult };

/** What a confirmation round needs to know about the call. */
export interface RoundCall {
  readonly tool: string;
  readonly message: string;
  readonly args: unknown;
  readonly principal: string;
  readonly round: InputRound;
}

function digest(args: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(args ?? null))
    .digest('base64url');
}

/**
 * The HMAC key of the confirmation state: derived from `RMK_STORE_KEY`, else `RVC_EVENT_SECRET`, so
 * every replica sharing that secret accepts the answer; else a key of this process only.
 */
export function confirmStateKey(env: NodeJS.ProcessEnv): Buffer {
  const secret = replicaSecretFrom(env);
  if (secret === undefined) return randomBytes(32);
  return createHmac('sha256', secret).update('robot-mcp-kit/confirm-request-state/v1').digest();
}

/**
 * Confirmation on MCP 2026-07-28 (SEP-2322 multi round-trip requests): the first round answers
 * `input_required` with an elicitation and a signed `requestState` bound to the tool, its
 * arguments, the principal and the deadline; the client asks its human and retries the same call
 * with the answer. A state that does not verify, belongs to another call or principal, is past its
 * deadline or was used already starts nothing.
 */
export class ConfirmRounds {
  private codec?: Promise<RequestStateCodec<ConfirmState>>;
  private readonly used = new Map<string, number>();

  constructor(
    private readonly key: Buffer,
    private readonly waitMs: number,
    private readonly clock: Clock,
  ) {}

  /** The state codec (HMAC-SHA256); its own expiry (wall clock) is a backstop to `until`. */
  private stateCodec(): Promise<RequestStateCodec<ConfirmState>> {
    this.codec ??= sdk().then(({ createRequestStateCodec }) =>
      createRequestStateCodec<ConfirmState>({
        key: this.key,
        ttlSeconds: Math.ceil(this.waitMs / 1000) + 60,
      }),
    );
    return this.codec;
  }

  async decide(call: RoundCall): Promise<RoundDecision> {
    const { round } = call;
    if (round.state === undefined) {
      if (!round.canElicit) {
        return this.refused(
          'it needs a human to confirm it and this client cannot ask (its request declares no ' +
            'elicitation capability on MCP 2026-07-28); use a client that supports elicitation',
        );
      }
      return { kind: 'ask', result: await this.ask(call) };
    }
    let state: ConfirmState;
    try {
      // No `bind` callback: the codec reads no context (the principal is in the signed payload).
      state = await (await this.stateCodec()).verify(round.state, undefined as unknown as ServerContext);
    } catch (error) {
      if (error instanceof Error && error.message === 'expired') return this.timedOut();
      return this.refused('the echoed requestState of the confirmation does not verify');
    }
    if (state.t !== call.tool || state.a !== digest(call.args) || state.p !== call.principal)
      return this.refused('the confirmation was given for another call');
    if (this.clock.now() > state.until) return this.timedOut();
    if (this.used.has(state.n)) return this.refused('this confirmation was used already; call again');
    const { inputResponse } = await sdk();
    const answer = inputResponse(round.responses, CONFIRM_INPUT_KEY);
    if (answer.kind !== 'elicit') return this.refused('no answer to the confirmation came back');
    this.use(state.n, state.until);
    if (answer.action === 'accept') return { kind: 'confirmed' };
    return this.refused(`the confirmation was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`);
  }

  private async ask(call: RoundCall): Promise<InputRequiredResult> {
    const state: ConfirmState = {
      t: call.tool,
      a: digest(call.args),
      p: call.principal,
      n: randomBytes(16).toString('base64url'),
      until: this.clock.now() + this.waitMs,
    };
    const { inputRequired } = await sdk();
    return inputRequired({
      inputRequests: {
        [CONFIRM_INPUT_KEY]: inputRequired.elicit({
          message: call.message,
          requestedSchema: { type: 'object', properties: {} },
        }),
      },
      requestState: await (await this.stateCodec()).mint(state),
    });
  }

  private use(nonce: string, until: number): void {
    const now = this.clock.now();
    for (const [seen, deadline] of this.used) {
      if (deadline >= now && this.used.size < MAX_USED) break;
      this.used.delete(seen);
    }
    this.used.set(nonce, until);
  }

  private timedOut(): RoundDecision {
    return this.refused(`no answer to the confirmation within ${Math.round(this.waitMs / 1000)} s`);
  }

  private refused(why: string): RoundDecision {
    return { kind: 'refused', why };
  }
}
