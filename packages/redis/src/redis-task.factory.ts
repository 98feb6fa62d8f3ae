import { adapterConnection, connectRedis } from './redis-connection.js';
import { KIT_SCRIPTS } from './redis.scripts.js';
import { type RedisTaskStoreOptions, resolveRedisTaskStoreOptions } from './redis-task-store.options.js';
import { RedisTaskStore } from './redis-task.store.js';

/** Options of {@link createRedisTaskStore}. */
export interface CreateRedisTaskStoreOptions extends RedisTaskStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly url: string;
  /** Time to reach Redis at start-up (default 5000 ms). */
  readonly connectTimeoutMs?: number;
  /** Time a command may take before it counts as an outage (default 2000 ms). */
  readonly commandTimeoutMs?: number;
}

/**
 * Connects to Redis (one client for commands, one for the cancel channel), takes this replica's
 * lease and returns a started {@link RedisTaskStore} that owns the connections.
 *
 * @example
 * const store = await createRedisTaskStore({ url: 'redis://127.0.0.1:6379/0', leaseMs: 15_000 });
 * @throws ConfigError naming the URL (credentials redacted) and the fix when Redis is unreachable.
 */
export async function createRedisTaskStore(options: CreateRedisTaskStoreOptions): Promise<RedisTaskStore> {
  const connect = adapterConnection(options, {
    component: 'redis-task-store',
    outageNote: 'task writes are retried, remote tasks unreadable meanwhile',
    checkOptions: () => resolveRedisTaskStoreOptions(options), // bad options fail before connecting
  });
  const client = await connectRedis(connect, KIT_SCRIPTS);
  let subscriber;
  try {
    subscriber = await connectRedis({ ...connect, commandTimeoutMs: 0x7fffffff }, KIT_SCRIPTS);
  } catch (error) {
    client.destroy();
    throw error;
  }
  const store = new RedisTaskStore(client, subscriber, options, true);
  try {
    await store.start();
  } catch (error) {
    client.destroy();
    subscriber.destroy();
    throw error;
  }
  return store;
}
