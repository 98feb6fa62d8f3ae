import { randomUUID } from 'node:crypto';
import { ConfigError, type Logger, silentLogger } from '@robot-mcp-kit/core';
import { positiveOption, keyPrefixOption } from './redis-connection.js';
import { StoreContentsMac } from './store-contents.mac.js';

/** Default key prefix of the task store: every key starts with it. */
export const DEFAULT_TASK_KEY_PREFIX = 'rmk:tasks:';
/** Default time a finished task stays readable (s), as a key expiry. */
export const DEFAULT_FINISHED_TTL_S = 3600;
/** Default lease of a replica on its running tasks (ms): renewed every third of it. */
export const DEFAULT_LEASE_MS = 15_000;

/** Options of {@link RedisTaskStore} (besides the clients). */
export interface RedisTaskStoreOptions {
  /** Every key starts with it (default `rmk:tasks:`); replicas of one fleet share it. */
  readonly keyPrefix?: string;
  /** How long a finished task stays readable (default 3600 s). */
  readonly finishedTtlS?: number;
  /**
   * How long a replica's tasks stay its own without a renewal (default 15000 ms). A dead replica's
   * running tasks are marked failed (`REPLICA_LOST`) about this long after it died.
   */
  readonly leaseMs?: number;
  /** How often a replica looks for lost replicas (default: half the lease). */
  readonly sweepEveryMs?: number;
  /** This replica's id (default a random UUID per process). */
  readonly replicaId?: string;
  /**
   * The event secret (`RVC_EVENT_SECRET`): each task record carries a MAC under a key derived from
   * it, and a record without a valid one is ignored (not answered, not failed as `REPLICA_LOST`;
   * counted, logged). Left out: records are not authenticated.
   */
  readonly secret?: string;
  readonly logger?: Logger;
}

/** The options with defaults applied and values checked. */
export interface ResolvedRedisTaskStoreOptions {
  readonly keyPrefix: string;
  readonly finishedTtlMs: number;
  readonly leaseMs: number;
  readonly renewEveryMs: number;
  readonly sweepEveryMs: number;
  readonly replicaId: string;
  readonly mac: StoreContentsMac;
  readonly logger: Logger;
}

/** @throws ConfigError naming the bad option. */
export function resolveRedisTaskStoreOptions(
  options: RedisTaskStoreOptions = {},
): ResolvedRedisTaskStoreOptions {
  const keyPrefix = keyPrefixOption(options.keyPrefix, DEFAULT_TASK_KEY_PREFIX, '"myfleet:tasks:"');
  const replicaId = options.replicaId ?? randomUUID();
  if (typeof replicaId !== 'string' || !/^[\w.-]{1,100}$/.test(replicaId)) {
    throw new ConfigError('replicaId', 'must be 1 to 100 letters, digits, "_", "." or "-", or left out');
  }
  const leaseMs = Math.ceil(positiveOption('leaseMs', options.leaseMs, DEFAULT_LEASE_MS));
  if (leaseMs < 300) throw new ConfigError('leaseMs', `must be at least 300 ms, got ${leaseMs}`);
  return {
    keyPrefix,
    finishedTtlMs: Math.ceil(
      positiveOption('finishedTtlS', options.finishedTtlS, DEFAULT_FINISHED_TTL_S) * 1000,
    ),
    leaseMs,
    renewEveryMs: Math.floor(leaseMs / 3),
    sweepEveryMs: Math.ceil(positiveOption('sweepEveryMs', options.sweepEveryMs, leaseMs / 2)),
    replicaId,
    mac: StoreContentsMac.from(options.secret),
    logger: (options.logger ?? silentLogger).child({ component: 'redis-task-store', replica: replicaId }),
  };
}
