import { ConfigError, redactUrlCredentials } from '@robot-mcp-kit/core';
import { createClient } from 'redis';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  checkedRedisUrl,
  errorText,
  positiveMs,
} from './redis-connection.js';
import { type RedisClient } from './redis-dedupe.store.js';
import { RedisEventOutbox } from './redis-event.outbox.js';
import { type RedisEventOutboxOptions, resolveRedisEventOutboxOptions } from './redis-outbox.options.js';

const MAX_RECONNECT_PAUSE_MS = 2000;

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

/** A node-redis client for the outbox (no offline queue, command timeout) and its fail-fast connect. */
function outboxClient(options: CreateRedisEventOutboxOptions): {
  client: RedisClient;
  connect: () => Promise<void>;
} {
  const url = checkedRedisUrl(options?.url);
  const resolved = resolveRedisEventOutboxOptions(options); // bad options fail before any connection
  const shown = redactUrlCredentials(url);
  const connectTimeout = positiveMs('connectTimeoutMs', options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
  const timeout = positiveMs('commandTimeoutMs', options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS);
  let ready = false;
  const client: RedisClient = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout },
    socket: {
      connectTimeout,
      // at start-up: give up at once (fail fast); later: reconnect with a growing pause
      reconnectStrategy: (retries, cause) =>
        ready ? Math.min(100 * (retries + 1), MAX_RECONNECT_PAUSE_MS) : new Error(errorText(cause)),
    },
  });
  const logger = resolved.logger.child({ url: shown });
  let lastErrorAt = Number.NEGATIVE_INFINITY;
  client.on('error', (error: unknown) => {
    const now = Date.now();
    if (!ready || now - lastErrorAt < 10_000) return;
    lastErrorAt = now;
    logger.warn('Redis connection error; reconnecting (events go out from memory meanwhile)', {
      error: errorText(error),
    });
  });
  client.on('ready', () => {
    if (ready) logger.info('Redis connection back', {});
  });
  const connect = async (): Promise<void> => {
    if (ready) return;
    try {
      await client.connect();
    } catch (error) {
      client.destroy();
      throw new ConfigError(
        'url',
        `cannot reach Redis at ${shown} (${redactUrlCredentials(errorText(error)) || 'no answer'}): start Redis there (e.g. redis-server --port 6379) or fix the URL (redis://[user:password@]host:port[/db])`,
      );
    }
    ready = true;
  };
  return { client, connect };
}
