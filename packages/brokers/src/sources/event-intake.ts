import { ConfigError, type Logger, systemClock } from '@robot-mcp-kit/core';
import { pause } from '@robot-mcp-kit/core/support';
import { errorText } from '../shared/signed-message.js';

/**
 * The receiver's source-independent entry point — `EventReceiver.receive` from
 * `@robot-mcp-kit/receiver` — so that broker messages go through the same
 * verify → dedupe → gap → `onEvent` pipeline as HTTP requests.
 */
export interface EventIntake {
  receive(request: {
    readonly method: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: Uint8Array;
  }): Promise<{ readonly status: number; readonly body: unknown }>;
}

/** What to do with a broker message once the receiver has judged it. */
export type MessageVerdict = 'ack' | 'reject' | 'stop';

/** Waits before re-offering a message `onEvent` refused: 500 ms, 2 s, 8 s, then every 30 s. */
export const REOFFER_DELAYS_MS: readonly number[] = [500, 2_000, 8_000, 30_000];

/**
 * Hands one message to the receiver as a signed POST would be. 2xx: `ack`. 4xx (tampered,
 * unsigned, invalid, unknown server): `reject` — redelivering cannot fix it. 5xx (`onEvent`
 * refused, the dedupe store or seq state unreachable: 503): offered again in place after a pause
 * from `delaysMs` (the last one repeats), on the live connection, so later messages wait, the
 * order holds and nothing piles up unacknowledged; until accepted, or until `signal` aborts or
 * the receiver itself is closing (`stop`: leave the message unacknowledged so the broker
 * redelivers it to the next consumer).
 */
export async function offerMessage(
  intake: EventIntake,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  signal: AbortSignal,
  logger: Logger,
  onRetry?: () => void,
  delaysMs: readonly number[] = REOFFER_DELAYS_MS,
): Promise<MessageVerdict> {
  const request = { method: 'POST', headers, body };
  for (let attempt = 0; ; attempt += 1) {
    if (signal.aborted) return 'stop';
    let status: number;
    let answer: unknown;
    try {
      ({ status, body: answer } = await intake.receive(request));
    } catch (err) {
      status = 500;
      answer = errorText(err);
    }
    if (status >= 200 && status < 300) return 'ack';
    if (status < 500) {
      logger.warn('broker message rejected by the receiver; dropped', {
        status,
        answer,
        event_id: headers['x-rvc-event-id'],
      });
      return 'reject';
    }
    if (status === 503 && (answer as { error?: unknown } | undefined)?.error === 'closing') return 'stop';
    const delay = delaysMs[Math.min(attempt, delaysMs.length - 1)] ?? 30_000;
    const meta = {
      status,
      answer,
      event_id: headers['x-rvc-event-id'],
      attempt: attempt + 1,
      retry_in_ms: delay,
    };
    if (attempt === 0)
      logger.warn('broker message refused by the receiver; offering it again in place', meta);
    else logger.debug('broker message refused again', meta);
    onRetry?.();
    await pause(systemClock, delay, signal);
  }
}

/** @throws ConfigError naming `name` unless `value` is a non-empty list of positive milliseconds. */
export function checkRetryDelays(value: readonly number[] | undefined, name: string): readonly number[] {
  if (value === undefined) return REOFFER_DELAYS_MS;
  if (!Array.isArray(value) || value.length === 0 || !value.every((ms) => Number.isFinite(ms) && ms > 0)) {
    throw new ConfigError(
      name,
      `must be a non-empty list of positive milliseconds, e.g. [500, 2000, 8000, 30000]; got ${JSON.stringify(value)}`,
    );
  }
  return [...value];
}

/** Lower-cases header names; the first value wins for repeated names. */
export function lowerCaseHeaders(entries: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (!(key in out)) out[key] = value;
  }
  return out;
}
