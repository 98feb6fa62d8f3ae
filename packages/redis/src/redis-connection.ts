import { ConfigError, type Logger } from '@robot-mcp-kit/core';
import { redactUrl, redactUrlCredentials } from '@robot-mcp-kit/core/rules';
import { createClient, type RedisClientType, type RedisScripts } from 'redis';

/**
 * A node-redis client as `createClient()` returns it (no modules, no functions: node-redis's own
 * `{}`), with the Lua scripts `S` registered: the app side's stores use none, the robot side's the
 * kit's (`KitRedisClient`, redis.scripts.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type RedisClient<S extends RedisScripts = {}> = RedisClientType<{}, {}, S>;

const MAX_RECONNECT_PAUSE_MS = 2000;
/** Default time to reach Redis at start-up. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** Default time a Redis command may take before it counts as failed. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/** The connection options every adapter factory of this package takes. */
export interface RedisUrlOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly url: string;
  /** Time to reach Redis at start-up (default 5000 ms). */
  readonly connectTimeoutMs?: number;
  /** Time a command may take before it counts as failed (default 2000 ms). */
  readonly commandTimeoutMs?: number;
  readonly logger?: Logger;
}

/**
 * Checks an adapter factory's connection options (naming the bad one) and runs `checkOptions` (the
 * adapter's own, so they fail before any connection); returns what {@link redisClient} takes.
 */
export function adapterConnection(
  options: RedisUrlOptions,
  adapter: { component: string; outageNote: string; checkOptions?: () => void },
): RedisConnectOptions {
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
  adapter.checkOptions?.();
  const logger = options.logger?.child({ component: adapter.component, url: redactUrl(url) });
  return {
    url,
    connectTimeoutMs,
    commandTimeoutMs,
    outageNote: adapter.outageNote,
    ...(logger ? { logger } : {}),
  };
}

/** {@link adapterConnection}, then connects, failing fast naming the URL. */
export async function connectAdapter(
  options: RedisUrlOptions,
  adapter: { component: string; outageNote: string; checkOptions?: () => void },
): Promise<RedisClient> {
  return connectRedis(adapterConnection(options, adapter));
}

/** @throws ConfigError unless the value (or its fallback) is a positive finite number of ms. */
export function positiveMs(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive number of ms, got ${String(value)}`);
  }
  return v;
}
const WARN_EVERY_MS = 10_000;

/** How {@link connectRedis} connects. */
export interface RedisConnectOptions {
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  /** Logs connection errors (at most one per 10 s) and the connection coming back. */
  readonly logger?: Logger;
  /** What an outage means for this user, in the warning, e.g. "claims answer 503 meanwhile". */
  readonly outageNote: string;
}

/**
 * Connects a node-redis client without an offline queue (an outage fails commands at once) and
 * with a command timeout. Fails fast at start-up; once connected, reconnects with a growing pause.
 * @throws ConfigError naming the URL (credentials redacted) and the fix.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export async function connectRedis<S extends RedisScripts = {}>(
  options: RedisConnectOptions,
  scripts?: S,
): Promise<RedisClient<S>> {
  const { client, connect } = redisClient(options, scripts);
  await connect();
  return client;
}

/**
 * The client {@link connectRedis} makes, not connected yet, and its `connect` (idempotent once
 * connected; @throws ConfigError naming the URL and the fix) — for adapters built synchronously.
 * `scripts` are registered on the client (node-redis `defineScript`s, sent as EVALSHA).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function redisClient<S extends RedisScripts = {}>(
  options: RedisConnectOptions,
  scripts?: S,
): {
  client: RedisClient<S>;
  connect: () => Promise<void>;
} {
  const shown = redactUrl(options.url);
  let ready = false;
  const client: RedisClient<S> = createClient({
    url: options.url,
    scripts: scripts ?? ({} as S),
    disableOfflineQueue: true,
    commandOptions: { timeout: options.commandTimeoutMs },
    socket: {
      connectTimeout: options.connectTimeoutMs,
      // at start-up: give up at once (fail fast); later: reconnect with a growing pause
      reconnectStrategy: (retries, cause) =>
        ready ? Math.min(100 * (retries + 1), MAX_RECONNECT_PAUSE_MS) : new Error(errorText(cause)),
    },
  });
  let lastErrorAt = Number.NEGATIVE_INFINITY;
  client.on('error', (error: unknown) => {
    const now = Date.now();
    if (!ready || now - lastErrorAt < WARN_EVERY_MS) return;
    lastErrorAt = now;
    options.logger?.warn(`Redis connection error; reconnecting (${options.outageNote})`, {
      url: shown,
      error: redactUrlCredentials(errorText(error)),
    });
  });
  client.on('ready', () => {
    if (ready) options.logger?.info('Redis connection back', { url: shown });
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

/** @throws ConfigError unless `url` is a redis:// or rediss:// URL. */
export function checkedRedisUrl(url: unknown, option = 'url'): string {
  if (typeof url !== 'string' || url.length === 0) {
    throw new ConfigError(option, 'must be a Redis URL such as redis://127.0.0.1:6379/0');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      option,
      `must be a Redis URL such as redis://127.0.0.1:6379/0, got "${redactUrl(url)}"`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError(option, `must start with redis:// or rediss://, got "${redactUrl(url)}"`);
  }
  return url;
}

/** @throws ConfigError unless the value (or its fallback) is a positive finite number. */
export function positiveOption(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive number, got ${String(value)}`);
  }
  return v;
}

/** A duration option given in seconds, as whole milliseconds (rounded up). @throws ConfigError as {@link positiveOption} */
export function secondsOptionMs(option: string, value: number | undefined, fallbackS: number): number {
  return Math.ceil(positiveOption(option, value, fallbackS) * 1000);
}

/** @throws ConfigError unless the value (or its fallback) is a positive safe integer. */
export function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive integer (default ${fallback}), got ${String(value)}`);
  }
  return v;
}

/** @throws ConfigError unless the key prefix (or its default) is a non-empty string. */
export function keyPrefixOption(value: string | undefined, fallback: string, example: string): string {
  const prefix = value ?? fallback;
  if (typeof prefix !== 'string' || prefix.length === 0) {
    throw new ConfigError('keyPrefix', `must be a non-empty string, e.g. ${example}, or left out`);
  }
  return prefix;
}

/** The message of an error (also of one from another realm, where `instanceof Error` fails). */
export function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** Closes `client` if it is open; destroys it when a graceful close fails. */
export async function closeClient(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  try {
    await client.close();
  } catch {
    client.destroy();
  }
}
