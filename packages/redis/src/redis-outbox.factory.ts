import { adapterConnection, redisClient } from './redis-connection.js';
import { KIT_SCRIPTS } from './redis.scripts.js';
import { RedisEventOutbox } from './redis-event.outbox.js';
import { type RedisEventOutboxOptions, resolveRedisEventOutboxOptions } from './redis-outbox.options.js';

/** Options of {@link createRedisEventOutbox}. */
export interface CreateRedisEventOutboxOptions extends RedisEventOutboxOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly url: string;
  /** Time to reach Redis at start-up (default 5000 ms). */
  readonly connectTimeoutMs?: number;
  /** Time a command may take before it counts as failed (default 2000 ms). */
  readonly commandTimeoutMs?: number;
}

/**
 * Connects to Redis and returns a {@link RedisEventOutbox} that owns the connection (the poster's
 * `aclose()` closes it). Fails fast when Redis is unreachable; once connected, an outage fails
 * commands at once (no offline queue) while the client reconnects in the background, and the
 * poster keeps delivering from memory.
 *
 * @example
 * const outbox = await createRedisEventOutbox({ url: 'redis://127.0.0.1:6379/0', serverName: 'sleeper', replicaId: hostname() });
 * const poster = EventPoster.fromEnv('sleeper', { outbox });
 * await poster.open(); // takes over what a dead replica left
 * @throws ConfigError naming the option, or the URL (credentials redacted) and the fix.
 */
export async function createRedisEventOutbox(
  options: CreateRedisEventOutboxOptions,
): Promise<RedisEventOutbox> {
  const { client, connect } = outboxClient(options);
  await connect();
  return new RedisEventOutbox(client, options, true);
}

/**
 * The same outbox, built synchronously (for a synchronous `bootstrap`): options are checked at once
 * (@throws ConfigError), and the connection is made by `start()` — which `EventPoster.open()` (the
 * server's `listen()`) calls — failing fast there with the URL and the fix when Redis is unreachable.
 *
 * @example
 * const outbox = redisEventOutbox({ url: process.env.RMK_STORE!, serverName: name, replicaId: hostname() });
 * const poster = EventPoster.fromEnv(name, { outbox }); // poster.open() connects and takes over
 */
export function redisEventOutbox(options: CreateRedisEventOutboxOptions): RedisEventOutbox {
  const { client, connect } = outboxClient(options);
  return new RedisEventOutbox(client, options, true, connect);
}

/** The outbox's client (no offline queue, command timeout) and its fail-fast connect; options checked first. */
function outboxClient(
  options: CreateRedisEventOutboxOptions,
): ReturnType<typeof redisClient<typeof KIT_SCRIPTS>> {
  return redisClient(
    adapterConnection(options, {
      component: 'redis-event-outbox',
      outageNote: 'events go out from memory meanwhile',
      checkOptions: () => resolveRedisEventOutboxOptions(options), // bad options fail before any connection
    }),
    KIT_SCRIPTS,
  );
}
