import { ConfigError, type Logger } from '@robot-mcp-kit/core';
import { redactUrlCredentials } from '@robot-mcp-kit/core/rules';
import { type TaskStore } from '@robot-mcp-kit/core/store';
import type * as RedisPackage from '@robot-mcp-kit/redis/server';

/** The package holding the Redis adapters, loaded only when a store URL is configured. */
export const REDIS_PACKAGE = '@robot-mcp-kit/redis';
/** Its robot-side entry (task store, outbox): the server never loads the receiver-side one. */
const REDIS_SERVER_ENTRY = `${REDIS_PACKAGE}/server`;

/** A Redis task store by URL, with its tuning. */
export interface TaskStoreSettings {
  /** `redis://host:port/db` (or `rediss://`). */
  readonly url: string;
  /** Lease of this replica on its running tasks, ms (default 15000; `RMK_STORE_LEASE_MS`). */
  readonly leaseMs?: number;
  /** How long a finished task stays readable, s (default 3600; `RMK_STORE_TTL_S`). */
  readonly finishedTtlS?: number;
  /** Key prefix shared by the replicas of one fleet (default `rmk:tasks:`; `RMK_STORE_PREFIX`). */
  readonly keyPrefix?: string;
  /**
   * This replica's id in the store, its logs and `REPLICA_LOST` failures (`RMK_REPLICA_ID`; default
   * a random UUID per process). A live replica holding the same id makes the start fail.
   */
  readonly replicaId?: string;
  /**
   * The secret the store's MAC key is derived from (`RMK_STORE_KEY`, else `RVC_EVENT_SECRET`):
   * outbox entries and task records without a valid MAC are never delivered or acted upon. Unset:
   * store contents are not authenticated (a warning at start-up says so).
   */
  readonly secret?: string;
}

/** The `store` option of bootstrap(): a URL, settings, or a store of your own (e.g. InMemoryTaskStore). */
export type TaskStoreOption = string | TaskStoreSettings | TaskStore;

/**
 * Resolves the task store setting: the `store` option wins, else `RMK_STORE` (with
 * `RMK_STORE_LEASE_MS`, `RMK_STORE_TTL_S`, `RMK_STORE_PREFIX`). Undefined when neither is set
 * (one process, in memory, as always). Bad values fail fast naming the variable.
 */
export function taskStoreSetting(
  env: NodeJS.ProcessEnv,
  option: TaskStoreOption | undefined,
): TaskStoreSettings | TaskStore | undefined {
  if (option !== undefined && typeof option === 'object' && 'put' in option) return option;
  const url = typeof option === 'string' ? option : (option?.url ?? env.RMK_STORE?.trim());
  if (!url) return undefined;
  const field = option === undefined ? 'RMK_STORE' : 'store';
  if (!/^rediss?:\/\/[^/]/.test(url)) {
    throw new ConfigError(
      field,
      `"${redactUrlCredentials(url)}" is not a Redis URL; use redis://host:port/db (e.g. redis://127.0.0.1:6379/0), or unset it to keep tasks in this process`,
    );
  }
  const settings: Partial<TaskStoreSettings> = typeof option === 'object' ? option : {};
  const leaseMs = settings.leaseMs ?? numberFrom(env, 'RMK_STORE_LEASE_MS');
  const finishedTtlS = settings.finishedTtlS ?? numberFrom(env, 'RMK_STORE_TTL_S');
  const keyPrefix = settings.keyPrefix ?? (env.RMK_STORE_PREFIX?.trim() || undefined);
  const replicaId = settings.replicaId ?? givenReplicaId(env);
  const secret = settings.secret ?? replicaSecretFrom(env);
  return {
    url,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(finishedTtlS !== undefined ? { finishedTtlS } : {}),
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
    ...(replicaId !== undefined ? { replicaId } : {}),
    ...(secret !== undefined ? { secret } : {}),
  };
}

/**
 * The secret every replica shares, from the environment: `RMK_STORE_KEY`, else `RVC_EVENT_SECRET`.
 * Keys derived from it (the store's MAC, the 2026 confirmation state) hold across replicas.
 */
export function replicaSecretFrom(env: NodeJS.ProcessEnv): string | undefined {
  return nonBlank(env.RMK_STORE_KEY) ?? nonBlank(env.RVC_EVENT_SECRET);
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * `RMK_REPLICA_ID` when set (checked), else undefined.
 * @throws ConfigError naming RMK_REPLICA_ID when it is not 1 to 100 of `[A-Za-z0-9_.-]`
 */
export function givenReplicaId(env: NodeJS.ProcessEnv): string | undefined {
  const given = env.RMK_REPLICA_ID?.trim();
  if (given === undefined || given === '') return undefined;
  if (!/^[\w.-]{1,100}$/.test(given)) {
    throw new ConfigError(
      'RMK_REPLICA_ID',
      `"${given}" is not valid; use 1 to 100 letters, digits, "_", "." or "-" (e.g. the pod name), or unset it`,
    );
  }
  return given;
}

function numberFrom(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      name,
      `"${raw}" is not a positive number; use e.g. ${name}=15000, or unset it for the default`,
    );
  }
  return value;
}

/**
 * Opens the store: a given TaskStore as is; settings through `@robot-mcp-kit/redis`, imported
 * only now (servers without a store never load it). Fails fast when Redis is unreachable.
 * @throws ConfigError naming RMK_STORE, the URL and the fix
 */
export async function openTaskStore(
  setting: TaskStoreSettings | TaskStore,
  logger: Logger,
): Promise<TaskStore> {
  if ('put' in setting) return setting;
  if (setting.secret === undefined) {
    logger.warn(
      'task store contents are not authenticated: anyone who can write to Redis can add task records and outbox entries; set RVC_EVENT_SECRET (or RMK_STORE_KEY) on every replica',
    );
  }
  const redis = await loadRedisPackage();
  try {
    return await redis.createRedisTaskStore({ ...setting, logger });
  } catch (error) {
    if (error instanceof ConfigError && error.variable === 'replicaId') {
      throw new ConfigError('RMK_REPLICA_ID', error.message.replace(/^replicaId: /, ''));
    }
    if (error instanceof ConfigError) throw new ConfigError('RMK_STORE', error.message.replace(/^url: /, ''));
    throw error;
  }
}

/**
 * `@robot-mcp-kit/redis/server`, imported only when a store URL is configured.
 * @throws ConfigError naming RMK_STORE when the package is not installed
 */
export async function loadRedisPackage(): Promise<typeof RedisPackage> {
  try {
    return (await import(REDIS_SERVER_ENTRY)) as typeof RedisPackage;
  } catch (error) {
    throw new ConfigError(
      'RMK_STORE',
      `needs the package ${REDIS_PACKAGE} (${String(error)}); install it next to @robot-mcp-kit/server, or unset RMK_STORE`,
    );
  }
}
