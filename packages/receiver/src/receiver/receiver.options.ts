import { type Clock, ConfigError, type Logger, silentLogger, systemClock } from '@robot-mcp-kit/core';
import { type DedupeStore } from './dedupe-store.port.js';
import { InMemoryDedupeStore } from './in-memory-dedupe.store.js';
import { type SeqStateStore } from './seq-state.port.js';
import { type EventHandler, type EventReceiverOptions, type GapHandler } from './receiver.types.js';

/** Default `maxBodyBytes`: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default `maxSkewS`, as the spec's `verify`. */
export const DEFAULT_MAX_SKEW_S = 300;
/** Default dedupe TTL: well past the poster's 10-minute retry cap. */
export const DEFAULT_DEDUPE_TTL_S = 3600;
/** Default most event_ids remembered (the byte budget usually binds first). */
export const DEFAULT_DEDUPE_MAX = 1_000_000;
/** Default byte budget of the event_id memory: 64 MiB (~350,000 ids). */
export const DEFAULT_DEDUPE_MAX_BYTES = 64 * 1024 * 1024;
/** Kept on top of the replay window (2 × maxSkewS) before an id may be forgotten for room. */
export const DEDUPE_MARGIN_S = 60;
export const DEFAULT_MAX_TASKS = 10_000;
export const DEFAULT_FINISHED_TTL_S = 600;

/** The options with every default applied and every value checked. */
export interface ResolvedOptions {
  readonly secrets: ReadonlyMap<string, string>;
  readonly onEvent: EventHandler;
  readonly onGap: GapHandler | undefined;
  readonly maxSkewS: number;
  readonly maxBodyBytes: number;
  readonly dedupe: DedupeStore;
  readonly holdMs: number | undefined;
  readonly maxTasks: number;
  readonly finishedTtlMs: number;
  readonly seqState: SeqStateStore | undefined;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Applies defaults and checks values. @throws ConfigError naming the bad option. */
export function resolveOptions(options: EventReceiverOptions): ResolvedOptions {
  if (typeof options?.onEvent !== 'function') {
    throw new ConfigError('onEvent', 'must be a function (event, context) => void | Promise<void>');
  }
  if (options.onGap !== undefined && typeof options.onGap !== 'function') {
    throw new ConfigError('onGap', 'must be a function (gap) => void, or left out');
  }
  const maxSkewS = positive('maxSkewS', options.maxSkewS, DEFAULT_MAX_SKEW_S);
  const logger = (options.logger ?? silentLogger).child({ component: 'event-receiver' });
  const clock = options.clock ?? systemClock;
  const resolved: ResolvedOptions = {
    secrets: resolveSecrets(options.secrets),
    onEvent: options.onEvent,
    onGap: options.onGap,
    maxSkewS,
    maxBodyBytes: positiveInt('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    dedupe: resolveDedupe(options.dedupe, maxSkewS, clock, logger),
    holdMs: options.inOrder ? positive('inOrder.holdMs', options.inOrder.holdMs, Number.NaN) : undefined,
    maxTasks: positiveInt('tracking.maxTasks', options.tracking?.maxTasks, DEFAULT_MAX_TASKS),
    finishedTtlMs:
      positive('tracking.finishedTtlS', options.tracking?.finishedTtlS, DEFAULT_FINISHED_TTL_S) * 1000,
    seqState: resolveSeqState(options),
    logger,
    clock,
  };
  return resolved;
}

/**
 * The dedupe store: the one given, or an {@link InMemoryDedupeStore} that never forgets an id
 * inside the replay window (2 × maxSkewS + 60 s), whatever `ttlS` says.
 */
function resolveDedupe(
  options: EventReceiverOptions['dedupe'],
  maxSkewS: number,
  clock: Clock,
  logger: Logger,
): DedupeStore {
  const store = options?.store;
  if (store !== undefined) {
    if (typeof store?.claim !== 'function') {
      throw new ConfigError('dedupe.store', 'must be a DedupeStore (an object with claim(key)), or left out');
    }
    return store;
  }
  const ttlMs = positive('dedupe.ttlS', options?.ttlS, DEFAULT_DEDUPE_TTL_S) * 1000;
  const protectMs = (2 * maxSkewS + DEDUPE_MARGIN_S) * 1000;
  if (ttlMs < protectMs) {
    logger.warn(
      'dedupe.ttlS is shorter than 2 × maxSkewS + 60 s: ids are kept that long anyway, so that a replay is never delivered twice',
      {
        dedupe_ttl_s: ttlMs / 1000,
        max_skew_s: maxSkewS,
      },
    );
  }
  return new InMemoryDedupeStore({
    ttlMs: Math.max(ttlMs, protectMs),
    protectMs,
    maxEntries: positiveInt('dedupe.max', options?.max, DEFAULT_DEDUPE_MAX),
    maxBytes: positiveInt('dedupe.maxBytes', options?.maxBytes, DEFAULT_DEDUPE_MAX_BYTES),
    clock,
  });
}

/** The shared seq state, or undefined (this process's memory). */
function resolveSeqState(options: EventReceiverOptions): SeqStateStore | undefined {
  const store = options.seqState?.store;
  if (options.seqState === undefined) return undefined;
  if (typeof store?.begin !== 'function' || typeof store.commit !== 'function') {
    throw new ConfigError(
      'seqState.store',
      'must be a SeqStateStore (an object with begin() and commit()), e.g. createRedisSeqStateStore(), or leave seqState out',
    );
  }
  if (options.inOrder !== undefined) {
    throw new ConfigError(
      'inOrder',
      'cannot be combined with seqState.store (held events cannot wait across instances); leave one of them out',
    );
  }
  return store;
}

function resolveSecrets(secrets: EventReceiverOptions['secrets'] | undefined): ReadonlyMap<string, string> {
  if (secrets === null || typeof secrets !== 'object') {
    throw new ConfigError(
      'secrets',
      'must map each server name to its secret, e.g. { navigation: process.env.NAV_SECRET }',
    );
  }
  const entries = secrets instanceof Map ? [...secrets.entries()] : Object.entries(secrets);
  if (entries.length === 0) {
    throw new ConfigError('secrets', 'names no server; add { <server name>: <its RVC_EVENT_SECRET> }');
  }
  for (const [name, secret] of entries) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new ConfigError(
        'secrets',
        'has an empty server name; use the name the server sends in X-RVC-Server',
      );
    }
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new ConfigError(
        `secrets.${name}`,
        'must be a non-empty string (the RVC_EVENT_SECRET of that server)',
      );
    }
  }
  return new Map(entries as [string, string][]);
}

function positive(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(option, `must be a positive number, got ${String(value)}`);
  }
  return v;
}

function positiveInt(option: string, value: number | undefined, fallback: number): number {
  const v = positive(option, value, fallback);
  if (!Number.isInteger(v)) throw new ConfigError(option, `must be a whole number, got ${String(value)}`);
  return v;
}
