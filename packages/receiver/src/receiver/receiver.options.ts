import { type Clock, ConfigError, type Logger, silentLogger, systemClock } from '@robot-mcp-kit/core';
import { type EventHandler, type EventReceiverOptions, type GapHandler } from './receiver.types.js';

/** Default `maxBodyBytes`: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default `maxSkewS`, as the spec's `verify`. */
export const DEFAULT_MAX_SKEW_S = 300;
/** Default dedupe TTL: well past the poster's 10-minute retry cap. */
export const DEFAULT_DEDUPE_TTL_S = 3600;
export const DEFAULT_DEDUPE_MAX = 10_000;
export const DEFAULT_MAX_TASKS = 10_000;
export const DEFAULT_FINISHED_TTL_S = 600;

/** The options with every default applied and every value checked. */
export interface ResolvedOptions {
  readonly secrets: ReadonlyMap<string, string>;
  readonly onEvent: EventHandler;
  readonly onGap: GapHandler | undefined;
  readonly maxSkewS: number;
  readonly maxBodyBytes: number;
  readonly dedupeTtlMs: number;
  readonly dedupeMax: number;
  readonly holdMs: number | undefined;
  readonly maxTasks: number;
  readonly finishedTtlMs: number;
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
  const resolved: ResolvedOptions = {
    secrets: resolveSecrets(options.secrets),
    onEvent: options.onEvent,
    onGap: options.onGap,
    maxSkewS: positive('maxSkewS', options.maxSkewS, DEFAULT_MAX_SKEW_S),
    maxBodyBytes: positiveInt('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    dedupeTtlMs: positive('dedupe.ttlS', options.dedupe?.ttlS, DEFAULT_DEDUPE_TTL_S) * 1000,
    dedupeMax: positiveInt('dedupe.max', options.dedupe?.max, DEFAULT_DEDUPE_MAX),
    holdMs: options.inOrder ? positive('inOrder.holdMs', options.inOrder.holdMs, Number.NaN) : undefined,
    maxTasks: positiveInt('tracking.maxTasks', options.tracking?.maxTasks, DEFAULT_MAX_TASKS),
    finishedTtlMs:
      positive('tracking.finishedTtlS', options.tracking?.finishedTtlS, DEFAULT_FINISHED_TTL_S) * 1000,
    logger: (options.logger ?? silentLogger).child({ component: 'event-receiver' }),
    clock: options.clock ?? systemClock,
  };
  if (resolved.dedupeTtlMs < 2 * resolved.maxSkewS * 1000) {
    resolved.logger.warn(
      'dedupe.ttlS is shorter than 2 × maxSkewS: a replayed request could be delivered twice',
      {
        dedupe_ttl_s: resolved.dedupeTtlMs / 1000,
        max_skew_s: resolved.maxSkewS,
      },
    );
  }
  return resolved;
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
