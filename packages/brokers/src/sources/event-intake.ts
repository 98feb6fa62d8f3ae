import { type Logger } from '@robot-mcp-kit/core';
import { errorText } from '../shared/signed-message.js';
import { pause } from '../shared/timeout.js';

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
 * refused): offered again in place after a pause, so later messages wait and the order holds,
 * until accepted or until `signal` aborts (`stop`: leave the message unacknowledged so the broker
 * redelivers it to the next consumer).
 */
export async function offerMessage(
  intake: EventIntake,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  signal: AbortSignal,
  logger: Logger,
  onRetry?: () => void,
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
    if (status === 503) return 'stop';
    onRetry?.();
    const delay = REOFFER_DELAYS_MS[Math.min(attempt, REOFFER_DELAYS_MS.length - 1)] ?? 30_000;
    await pause(delay, signal);
  }
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
