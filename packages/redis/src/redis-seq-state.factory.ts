import { ConfigError, redactUrlCredentials } from '@robot-mcp-kit/core';
import { checkedRedisUrl, connectRedis } from './redis-connection.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS } from './redis-dedupe.factory.js';
import { type RedisSeqStateOptions, resolveRedisSeqStateOptions } from './redis-seq-state.options.js';
import { RedisSeqStateStore } from './redis-seq-state.store.js';

/** Options of {@link createRedisSeqStateStore}. */
export interface CreateRedisSeqStateStoreOptions extends RedisSeqStateOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly url: string;
  /** Time to reach Redis at start-up (default 5000 ms). */
  readonly connectTimeoutMs?: number;
  /** Time a command may take before the event answers 503 (default 2000 ms). */
  readonly commandTimeoutMs?: number;
}

/**
 * Connects to Redis and returns a {@link RedisSeqStateStore} that owns the connection
 * (`close()` closes it). Fails fast when Redis is unreachable; once connected, an outage makes
 * events answer 503 at once (no offline queue) while the client reconnects in the background.
 *
 * @example
 * const seq = await createRedisSeqStateStore({ url: 'redis://127.0.0.1:6379/0', keyPrefix: 'app:seq:' });
 * const receiver = createEventReceiver({ secrets, onEvent, dedupe: { store }, seqState: { store: seq } });
 * @throws ConfigError naming the URL (credentials redacted) and the fix.
 */
export async function createRedisSeqStateStore(
  options: CreateRedisSeqStateStoreOptions,
): Promise<RedisSeqStateStore> {
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
  const logger = options.logger?.child({
    component: 'redis-seq-state-store',
    url: redactUrlCredentials(url),
  });
  resolveRedisSeqStateOptions(options); // bad options fail before connecting
  const client = await connectRedis({
    url,
    connectTimeoutMs,
    commandTimeoutMs,
    outageNote: 'events answer 503 meanwhile',
    ...(logger ? { logger } : {}),
  });
  return new RedisSeqStateStore(client, options, true);
}

function positiveMs(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive number of ms, got ${String(value)}`);
  }
  return v;
}
