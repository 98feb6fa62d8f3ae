import { connectAdapter, type RedisUrlOptions } from './redis-connection.js';
import { type RedisSeqStateOptions, resolveRedisSeqStateOptions } from './redis-seq-state.options.js';
import { RedisSeqStateStore } from './redis-seq-state.store.js';

/** Options of {@link createRedisSeqStateStore}. */
export interface CreateRedisSeqStateStoreOptions extends RedisSeqStateOptions, RedisUrlOptions {
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
  const client = await connectAdapter(options, {
    component: 'redis-seq-state-store',
    outageNote: 'events answer 503 meanwhile',
    checkOptions: () => resolveRedisSeqStateOptions(options), // bad options fail before connecting
  });
  return new RedisSeqStateStore(client, options, true);
}
