import { ConfigError, redactUrlCredentials } from '@robot-mcp-kit/core';
import { createClient } from 'redis';
import { type RedisDedupeOptions } from './redis-dedupe.options.js';
import { type RedisClient, RedisDedupeStore } from './redis-dedupe.store.js';

/** Default time to reach Redis at start-up. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** Default time a Redis command may take before the event is refused with 503. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const MAX_RECONNECT_PAUSE_MS = 2000;

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
  const url = checkedUrl(options?.url);
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
  const store = new RedisDedupeStore(client, options, true);
  const logger = options.logger?.child({ component: 'redis-dedupe-store', url: shown });
  let lastErrorAt = Number.NEGATIVE_INFINITY;
  client.on('error', (error: unknown) => {
    const now = Date.now();
    if (!ready || now - lastErrorAt < 10_000) return;
    lastErrorAt = now;
    logger?.warn('Redis connection error; reconnecting (claims answer 503 meanwhile)', {
      error: errorText(error),
    });
  });
  client.on('ready', () => {
    if (ready) logger?.info('Redis connection back', {});
  });
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    const reason = errorText(error);
    throw new ConfigError(
      'url',
      `cannot reach Redis at ${shown} (${redactUrlCredentials(reason) || 'no answer'}): start Redis there (e.g. redis-server --port 6379) or fix the URL (redis://[user:password@]host:port[/db])`,
    );
  }
  ready = true;
  return store;
}

function checkedUrl(url: unknown): string {
  if (typeof url !== 'string' || url.length === 0) {
    throw new ConfigError('url', 'must be a Redis URL such as redis://127.0.0.1:6379/0');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      'url',
      `must be a Redis URL such as redis://127.0.0.1:6379/0, got "${redactUrlCredentials(url)}"`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError('url', `must start with redis:// or rediss://, got "${redactUrlCredentials(url)}"`);
  }
  return url;
}

function positiveMs(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive number of ms, got ${String(value)}`);
  }
  return v;
}

/** The message of an error (also of one from another realm, where `instanceof Error` fails). */
function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
