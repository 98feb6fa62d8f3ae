import { ConfigError } from '@robot-mcp-kit/core';

/** Settings of the native MCP tasks feature (`bootstrap(Server, { nativeTasks: {...} })`). */
export interface NativeTasksOptions {
  /** TTL of a protocol task whose caller asked for none, in ms. Default 1 h. */
  defaultTtlMs?: number;
  /** Longest TTL granted; longer requests are clamped to it. Default 24 h. */
  maxTtlMs?: number;
  /** Shortest TTL granted; shorter requests are raised to it. Default 1 s. */
  minTtlMs?: number;
  /** The `pollInterval` suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Tasks per tasks/list page. Default 50. */
  pageSize?: number;
  /**
   * Most protocol tasks remembered across all sessions; beyond it the oldest finished ones expire
   * early (running tasks always stay). Default 1000.
   */
  maxTasks?: number;
  /**
   * Send notifications/progress for tools/call requests that carry a progressToken, while the request
   * is in flight: until the response of a plain call, until the end of a task-augmented one. Values
   * strictly increase per token. Default true.
   */
  progressNotifications?: boolean;
}

export type ResolvedNativeTasksOptions = Required<NativeTasksOptions>;

export const NATIVE_TASKS_DEFAULTS: ResolvedNativeTasksOptions = Object.freeze({
  defaultTtlMs: 60 * 60 * 1000,
  maxTtlMs: 24 * 60 * 60 * 1000,
  minTtlMs: 1000,
  pollIntervalMs: 1000,
  pageSize: 50,
  maxTasks: 1000,
  progressNotifications: true,
});

const COUNTS = ['defaultTtlMs', 'maxTtlMs', 'minTtlMs', 'pollIntervalMs', 'pageSize', 'maxTasks'] as const;

/**
 * Applies the defaults and checks every option; throws ConfigError naming the bad one. Later
 * layers override earlier ones (`undefined` layers are skipped). Without an explicit
 * `defaultTtlMs`, the default is clamped into `[minTtlMs, maxTtlMs]`.
 */
export function resolveNativeTasksOptions(...layers: unknown[]): ResolvedNativeTasksOptions {
  const given: Record<string, unknown> = {};
  for (const layer of layers) {
    if (layer === undefined || layer === null) continue;
    if (typeof layer !== 'object' || Array.isArray(layer)) {
      throw new ConfigError(
        'nativeTasks',
        `expected an object such as { defaultTtlMs: 3600000 }, got ${show(layer)}`,
      );
    }
    for (const [key, value] of Object.entries(layer)) if (value !== undefined) given[key] = value;
  }
  const resolved: Record<string, unknown> = { ...NATIVE_TASKS_DEFAULTS };
  for (const key of COUNTS) {
    const value = given[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new ConfigError(`nativeTasks.${key}`, `expected a positive integer, got ${show(value)}`);
    }
    resolved[key] = value;
  }
  if (given.progressNotifications !== undefined) {
    if (typeof given.progressNotifications !== 'boolean') {
      throw new ConfigError(
        'nativeTasks.progressNotifications',
        `expected true or false, got ${show(given.progressNotifications)}`,
      );
    }
    resolved.progressNotifications = given.progressNotifications;
  }
  const result = resolved as ResolvedNativeTasksOptions;
  if (result.minTtlMs > result.maxTtlMs) {
    throw new ConfigError(
      'nativeTasks.minTtlMs',
      `must not exceed nativeTasks.maxTtlMs (${result.maxTtlMs}), got ${result.minTtlMs}`,
    );
  }
  if (given.defaultTtlMs === undefined) {
    result.defaultTtlMs = Math.min(result.maxTtlMs, Math.max(result.minTtlMs, result.defaultTtlMs));
  }
  if (result.defaultTtlMs < result.minTtlMs || result.defaultTtlMs > result.maxTtlMs) {
    throw new ConfigError(
      'nativeTasks.defaultTtlMs',
      `must lie between nativeTasks.minTtlMs (${result.minTtlMs}) and nativeTasks.maxTtlMs (${result.maxTtlMs}), ` +
        `got ${result.defaultTtlMs}`,
    );
  }
  return result;
}

/** The TTL granted for a requested one: the default when none (or null), else clamped to the bounds. */
export function grantedTtl(
  requested: number | null | undefined,
  options: ResolvedNativeTasksOptions,
): number {
  if (requested === undefined || requested === null || !Number.isFinite(requested))
    return options.defaultTtlMs;
  return Math.min(options.maxTtlMs, Math.max(options.minTtlMs, Math.round(requested)));
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
