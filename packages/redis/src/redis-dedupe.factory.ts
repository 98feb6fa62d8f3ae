import { ConfigError, redactUrlCredentials } from '@robot-mcp-kit/core';
import { checkedRedisUrl, connectRedis } from './redis-connection.js';
import { type RedisDedupeOptions } from './redis-dedupe.options.js';
import { RedisDedupeStore } from './redis-dedupe.store.js';

/** Default time to reach Redis at start-up. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** Default time a Redis command may take before the event is refused with 503. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/** Options of {@link createRedisDedupeStore}. */
export interface CreateRedisDedupeStoreOptions extends RedisDedupeOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly url: string;
  /** Time to reach Redis at start-up (default 5000 ms). */
  readonly connectTimeoutMs?: number;
  /** Time a command may take before the claim answers 503 (default 2000 ms). */
  readonly commandTimeoutMs?: number;
}

/**
 * Connects to Redis and returns a {@link RedisDedupeStore} that owns the connection
 * (`close()` closes it). Fails fast when Redis is unreachable; once connected, an outage makes
 * claims answer 503 at once (no offline queue) while the client reconnects in the background.
 *
 * @example
 * const dedupe = await createRedisDedupeStore({ url: 'redis://127.0.0.1:6379/0', keyPrefix: 'app:dedupe:' });
 * const receiver = createEventReceiver({ secrets, onEvent, dedupe: { store: dedupe } });
 * @throws ConfigError naming the URL (credentials redacted) and the fix.
 */
export async function createRedisDedupeStore(
  options: CreateRedisDedupeStoreOptions,
): Promise<RedisDedupeStore> {
  const url = checkedRedisUrl(options?.url);
  const connectTimeoutMs = positiveMs(
    'connectTimeoutMs',
    options.connectTimeoutMs,
    DEFAULT_CONNECT_TIMEOUT_MS,
  );
  const commandTimeoutMs = positiveMs(
    'commandTimeoutMs',
    options.commandTimeoutMs,
    DEFAULT_COMMAND_TIMEOUT_MS,
  );
  const logger = options.logger?.child({ component: 'redis-dedupe-store', url: redactUrlCredentials(url) });
  const client = await connectRedis({
    url,
    connectTimeoutMs,
    commandTimeoutMs,
    outageNote: 'claims answer 503 meanwhile',
    ...(logger ? { logger } : {}),
  });
  return new RedisDedupeStore(client, options, true);
}

function positiveMs(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive number of ms, got ${String(value)}`);
  }
  return v;
}
