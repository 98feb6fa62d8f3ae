import { type Logger, silentLogger } from '@robot-mcp-kit/core';
import { keyPrefixOption, secondsOptionMs } from './redis-connection.js';
import { unavailableRetryAfterOption } from './redis-refusals.js';
import { DEFAULT_FINISHED_TTL_S } from '@robot-mcp-kit/receiver';

/** Default key prefix of the seq state: every key of the store starts with it. */
export const DEFAULT_SEQ_KEY_PREFIX = 'rmk:seq:';
/** Default time a task nobody posts for any more is kept (it never finished): one day. */
export const DEFAULT_SEQ_IDLE_TTL_S = 86_400;

/** Options of {@link RedisSeqStateStore} (besides the client). */
export interface RedisSeqStateOptions {
  /** Every key starts with it (default `rmk:seq:`); the instances of one app share it. */
  readonly keyPrefix?: string;
  /** How long a finished task (task_done / task_failed delivered) is kept (default 600 s). */
  readonly finishedTtlS?: number;
  /** How long an unfinished task is kept after its last event (default 86 400 s). */
  readonly idleTtlS?: number;
  /** `Retry-After` of the 503 while Redis is unreachable (default 5 s). */
  readonly unavailableRetryAfterS?: number;
  readonly logger?: Logger;
}

/** The options with defaults applied and values checked. */
export interface ResolvedRedisSeqStateOptions {
  readonly keyPrefix: string;
  readonly finishedTtlMs: number;
  readonly idleTtlMs: number;
  readonly unavailableRetryAfterS: number;
  readonly logger: Logger;
}

/** @throws ConfigError naming the bad option. */
export function resolveRedisSeqStateOptions(
  options: RedisSeqStateOptions = {},
): ResolvedRedisSeqStateOptions {
  const keyPrefix = keyPrefixOption(options.keyPrefix, DEFAULT_SEQ_KEY_PREFIX, '"myapp:seq:"');
  return {
    keyPrefix,
    finishedTtlMs: secondsOptionMs('finishedTtlS', options.finishedTtlS, DEFAULT_FINISHED_TTL_S),
    idleTtlMs: secondsOptionMs('idleTtlS', options.idleTtlS, DEFAULT_SEQ_IDLE_TTL_S),
    unavailableRetryAfterS: unavailableRetryAfterOption(options.unavailableRetryAfterS),
    logger: (options.logger ?? silentLogger).child({ component: 'redis-seq-state-store' }),
  };
}
