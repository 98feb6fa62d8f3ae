import { connectAdapter, type RedisUrlOptions } from './redis-connection.js';
import { type RedisDedupeOptions, resolveRedisDedupeOptions } from './redis-dedupe.options.js';
import { RedisDedupeStore } from './redis-dedupe.store.js';

export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS } from './redis-connection.js';

/** Options of {@link createRedisDedupeStore}. */
export interface CreateRedisDedupeStoreOptions extends RedisDedupeOptions, RedisUrlOptions {
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
  const client = await connectAdapter(options, {
    component: 'redis-dedupe-store',
    outageNote: 'claims answer 503 meanwhile',
    checkOptions: () => resolveRedisDedupeOptions(options), // bad options fail before connecting
  });
  return new RedisDedupeStore(client, options, true);
}
