import { type Logger, silentLogger } from '@robot-mcp-kit/core';
import { keyPrefixOption, positiveOption, secondsOptionMs } from './redis-connection.js';
import { unavailableRetryAfterOption } from './redis-refusals.js';
import { DEFAULT_DEDUPE_TTL_S, DEFAULT_MAX_SKEW_S } from '@robot-mcp-kit/receiver';

/** Default key prefix: every key of the store starts with it. */
export const DEFAULT_KEY_PREFIX = 'rmk:dedupe:';
/** Default time a claim is held while `onEvent` runs, before another instance may take it over. */
export const DEFAULT_CLAIM_TTL_S = 60;
/** Default wait for another instance's delivery of the same id before answering 500 (retry). */
export const DEFAULT_IN_FLIGHT_WAIT_MS = 5000;
/** Default `Retry-After` (s) of the 503 answered while Redis is unreachable. */
/** Kept on top of the replay window (2 × maxSkewS), as the receiver's in-memory store does. */
const DEDUPE_MARGIN_S = 60;

/** Options of {@link RedisDedupeStore} (besides the client). */
export interface RedisDedupeOptions {
  /** Every key starts with it (default `rmk:dedupe:`); give each receiver fleet its own. */
  readonly keyPrefix?: string;
  /** How long a delivered id is remembered (default 3600 s, as the in-memory store). */
  readonly ttlS?: number;
  /**
   * The receiver's `maxSkewS` (default 300). An id is kept at least 2 × maxSkewS + 60 s — while a
   * replay of it can still pass the timestamp check — whatever `ttlS` says.
   */
  readonly maxSkewS?: number;
  /** How long a claim is held while `onEvent` runs (default 60 s); longer handlers need more. */
  readonly claimTtlS?: number;
  /** How long a request waits for another instance delivering the same id (default 5000 ms). */
  readonly inFlightWaitMs?: number;
  /** `Retry-After` of the 503 while Redis is unreachable (default 5 s). */
  readonly unavailableRetryAfterS?: number;
  readonly logger?: Logger;
}

/** The options with defaults applied and values checked. */
export interface ResolvedRedisDedupeOptions {
  readonly keyPrefix: string;
  /** How long a delivered id is kept: max(ttlS, 2 × maxSkewS + 60 s), in ms. */
  readonly retentionMs: number;
  readonly claimTtlMs: number;
  readonly inFlightWaitMs: number;
  readonly unavailableRetryAfterS: number;
  readonly logger: Logger;
}

/** @throws ConfigError naming the bad option. */
export function resolveRedisDedupeOptions(options: RedisDedupeOptions = {}): ResolvedRedisDedupeOptions {
  const keyPrefix = keyPrefixOption(options.keyPrefix, DEFAULT_KEY_PREFIX, '"myapp:dedupe:"');
  const ttlS = positiveOption('ttlS', options.ttlS, DEFAULT_DEDUPE_TTL_S);
  const maxSkewS = positiveOption('maxSkewS', options.maxSkewS, DEFAULT_MAX_SKEW_S);
  const protectS = 2 * maxSkewS + DEDUPE_MARGIN_S;
  return {
    keyPrefix,
    retentionMs: Math.ceil(Math.max(ttlS, protectS) * 1000),
    claimTtlMs: secondsOptionMs('claimTtlS', options.claimTtlS, DEFAULT_CLAIM_TTL_S),
    inFlightWaitMs: positiveOption('inFlightWaitMs', options.inFlightWaitMs, DEFAULT_IN_FLIGHT_WAIT_MS),
    unavailableRetryAfterS: unavailableRetryAfterOption(options.unavailableRetryAfterS),
    logger: (options.logger ?? silentLogger).child({ component: 'redis-dedupe-store' }),
  };
}
