import { ConfigError, type Logger, silentLogger } from '@robot-mcp-kit/core';
import { positiveInteger, keyPrefixOption } from './redis-connection.js';
import { StoreContentsMac } from './store-contents.mac.js';

/** Default key prefix of the outbox streams: `rmk:outbox:{<server name>}`. */
export const DEFAULT_OUTBOX_KEY_PREFIX = 'rmk:outbox:';
/** Default idle time after which a dead replica's undelivered events are taken over. */
export const DEFAULT_CLAIM_IDLE_MS = 30_000;
/** Default most undelivered events in the stream of one server name. */
export const DEFAULT_OUTBOX_MAX_ENTRIES = 100_000;
/** Default most bytes of event bodies in the stream of one server name (256 MiB). */
export const DEFAULT_OUTBOX_MAX_BYTES = 256 * 1024 * 1024;
/** Default most bytes of events kept in memory to write again once Redis is back (16 MiB). */
export const DEFAULT_OUTBOX_RETRY_BYTES = 16 * 1024 * 1024;

/** Options of {@link RedisEventOutbox} (besides the client). */
export interface RedisEventOutboxOptions {
  /** The server name: its replicas share one stream (`<keyPrefix>{<serverName>}`) and take over each other's events. */
  readonly serverName: string;
  /**
   * This replica's name in the consumer group, e.g. the host name or pod name. A restart under the
   * same name takes its former life's events back at once; under another name, after `claimIdleMs`.
   */
  readonly replicaId: string;
  /** Every key starts with it (default `rmk:outbox:`). */
  readonly keyPrefix?: string;
  /**
   * How long an event must sit unrenewed before a live replica takes it over (default 30 000 ms).
   * A running replica renews its own events every third of it, so only a dead (or frozen) one loses them.
   */
  readonly claimIdleMs?: number;
  /** Most undelivered events in the stream (default 100 000); past it, new events are not stored (logged). */
  readonly maxEntries?: number;
  /** Most bytes of event bodies in the stream (default 256 MiB); past it, new events are not stored (logged). */
  readonly maxBytes?: number;
  /** Most bytes of events whose write failed (Redis down) kept in memory to write again (default 16 MiB). */
  readonly maxRetryBytes?: number;
  /**
   * The event secret (`RVC_EVENT_SECRET`): each entry carries a MAC under a key derived from it,
   * and an entry without a valid one is never delivered (dropped, counted, logged). Left out:
   * entries are not authenticated (anyone who can write to Redis can add events).
   */
  readonly secret?: string;
  /**
   * The fencing token appends carry (the task store's `fencingToken()`): the key holding the
   * replica's epoch and the epoch it holds. An append is refused once the key holds another epoch
   * (a survivor fenced this replica). Left out: appends are not fenced.
   */
  readonly fence?: () => OutboxFence | undefined;
  readonly logger?: Logger;
}

/** A fencing token: the Redis key of the replica's epoch and the epoch it holds. */
export interface OutboxFence {
  readonly key: string;
  readonly epoch: string;
}

/** The options with defaults applied and values checked. */
export interface ResolvedRedisEventOutboxOptions {
  readonly serverName: string;
  readonly replicaId: string;
  readonly stream: string;
  readonly bytesKey: string;
  readonly claimIdleMs: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly maxRetryBytes: number;
  readonly mac: StoreContentsMac;
  readonly fence: () => OutboxFence | undefined;
  readonly logger: Logger;
}

/** @throws ConfigError naming the bad option. */
export function resolveRedisEventOutboxOptions(
  options: RedisEventOutboxOptions,
): ResolvedRedisEventOutboxOptions {
  const serverName = name('serverName', options?.serverName, '"navigation"');
  const replicaId = name('replicaId', options.replicaId, 'the host or pod name, e.g. "navigation-0"');
  const keyPrefix = keyPrefixOption(options.keyPrefix, DEFAULT_OUTBOX_KEY_PREFIX, '"myapp:outbox:"');
  // one hash tag: the stream and its byte counter sit in the same cluster slot (one script touches both)
  const stream = `${keyPrefix}{${serverName}}`;
  return {
    serverName,
    replicaId,
    stream,
    bytesKey: `${stream}:bytes`,
    claimIdleMs: positiveInteger('claimIdleMs', options.claimIdleMs, DEFAULT_CLAIM_IDLE_MS),
    maxEntries: positiveInteger('maxEntries', options.maxEntries, DEFAULT_OUTBOX_MAX_ENTRIES),
    maxBytes: positiveInteger('maxBytes', options.maxBytes, DEFAULT_OUTBOX_MAX_BYTES),
    maxRetryBytes: positiveInteger('maxRetryBytes', options.maxRetryBytes, DEFAULT_OUTBOX_RETRY_BYTES),
    mac: StoreContentsMac.from(options.secret),
    fence: options.fence ?? (() => undefined),
    logger: (options.logger ?? silentLogger).child({
      component: 'redis-event-outbox',
      stream,
      replica: replicaId,
    }),
  };
}

function name(option: string, value: unknown, example: string): string {
  if (typeof value !== 'string' || value.trim() === '' || /[{}\s]/.test(value)) {
    throw new ConfigError(option, `must be a non-empty string without spaces or braces, e.g. ${example}`);
  }
  return value;
}
