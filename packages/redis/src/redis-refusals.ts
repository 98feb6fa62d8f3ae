import { type Logger } from '@robot-mcp-kit/core';
import { errorText, positiveOption } from './redis-connection.js';
import { LogThrottle } from './log-throttle.js';

/** Default `Retry-After` (s) of a receiver-side store's 503 while Redis is unreachable. */
export const DEFAULT_UNAVAILABLE_RETRY_AFTER_S = 5;

/**
 * The `unavailableRetryAfterS` option of a receiver-side store: a positive number of seconds
 * (default 5), rounded up to whole seconds as `Retry-After` needs. @throws ConfigError naming it.
 */
export function unavailableRetryAfterOption(value: number | undefined): number {
  return Math.ceil(positiveOption('unavailableRetryAfterS', value, DEFAULT_UNAVAILABLE_RETRY_AFTER_S));
}

/** What a receiver-side store answers when Redis did not: refuse with 503 + Retry-After. */
export interface Unavailable {
  readonly state: 'unavailable';
  readonly retryAfterS: number;
}

/**
 * Counts the events a receiver-side store refused because Redis did not answer, and warns at
 * most once per 10 s (with the count so far) — one outage is one log line per 10 s, not one per event.
 */
export class RedisRefusals {
  private refused = 0;
  private readonly throttle = new LogThrottle();

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly retryAfterS: number,
  ) {}

  /** Refusals so far. */
  get count(): number {
    return this.refused;
  }

  /** Records one refusal of the event keyed `key`; returns the answer to give. */
  refuse(error: unknown, key: string): Unavailable {
    this.refused += 1;
    if (this.throttle.due('refused')) {
      this.logger.warn(this.message, {
        key,
        error: errorText(error),
        retry_after_s: this.retryAfterS,
        refused_so_far: this.refused,
      });
    }
    return { state: 'unavailable', retryAfterS: this.retryAfterS };
  }
}
