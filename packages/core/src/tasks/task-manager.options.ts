import { systemClock, type Clock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { type EventSink } from '../events/event.types.js';
import { TriggerRegistry } from '../triggers/trigger.registry.js';
import { describeValue } from './task-json.util.js';
import { randomHex6 } from './task-id.js';

/** Options of {@link TaskManager}. */
export interface TaskManagerOptions {
  /** The server's name (`navigation`); events carry it and task ids start with its first 4 characters. */
  serverName: string;
  /** Where events go, usually an EventPoster. Default: a sink that discards them. */
  poster?: EventSink;
  /** The trigger evaluators. Default: {@link TriggerRegistry.withBuiltins} (`progress_above`, `eta_below`, `zone_entered`). */
  triggers?: TriggerRegistry;
  /** How many finished tasks stay readable with get/list (oldest evicted first). Default 200. */
  maxFinishedRetained?: number;
  /**
   * How long a cancelled body may take to stop before it is reported as ignoring cancellation
   * (`overran_grace: true` and a warning), and how long shutdown waits for it, in ms. Default 5000.
   */
  cancelGraceMs?: number;
  /**
   * How long `cancel` waits for the body to stop before it answers, in ms (at most
   * `cancelGraceMs`); a body still running then is reported with `body_running: true`. Default 250.
   */
  cancelReplyMs?: number;
  clock?: Clock;
  logger?: Logger;
  /**
   * The id generator port: 6 lowercase hex digits per call, the random part of a task id
   * (`<prefix>-<6 hex>`). Default: a keyed counter (no repeat within a process for 2^24 ids).
   * Tests inject a fake one to force clashes (e.g. two replicas drawing the same ids).
   */
  taskIdRandom?: () => string;
  /**
   * The id of the replica this manager runs on (scaled servers with a shared task store): set as
   * `robot_mcp_kit.replica.id` on the tasks' OpenTelemetry spans. Default: none.
   */
  replicaId?: string;
}

/** {@link TaskManagerOptions} with defaults applied and checked. */
export interface ResolvedTaskManagerOptions {
  serverName: string;
  poster: EventSink;
  triggers: TriggerRegistry;
  maxFinishedRetained: number;
  cancelGraceMs: number;
  cancelReplyMs: number;
  clock: Clock;
  logger: Logger;
  taskIdRandom: () => string;
  replicaId: string | undefined;
}

/** The default sink: discards events (a manager with nowhere to push still answers get/list). */
export const discardingSink: EventSink = { post: () => undefined };

function hasMethods(value: unknown, names: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

/** Applies the defaults and validates every option; throws ConfigError naming the bad option. */
export function resolveTaskManagerOptions(options: TaskManagerOptions): ResolvedTaskManagerOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('options', `expected { serverName, ... }, got ${describeValue(options)}`);
  }
  const {
    serverName,
    poster = discardingSink,
    triggers = TriggerRegistry.withBuiltins(),
    maxFinishedRetained = 200,
    cancelGraceMs = 5000,
    cancelReplyMs = 250,
    clock = systemClock,
    logger = silentLogger,
    taskIdRandom = randomHex6,
    replicaId,
  } = options;
  if (typeof serverName !== 'string' || serverName.trim().length === 0) {
    throw new ConfigError(
      'serverName',
      `expected the server's non-empty name such as "navigation", got ${describeValue(serverName)}`,
    );
  }
  requireMethods('poster', poster, ['post'], 'an event sink with a post(event) method');
  requireMethods('triggers', triggers, ['get', 'types'], 'a TriggerRegistry');
  if (!Number.isInteger(maxFinishedRetained) || maxFinishedRetained < 0) {
    throw new ConfigError(
      'maxFinishedRetained',
      `expected a whole number >= 0 (default 200), got ${describeValue(maxFinishedRetained)}`,
    );
  }
  requireMs('cancelGraceMs', cancelGraceMs, 5000);
  requireMs('cancelReplyMs', cancelReplyMs, 250);
  requireMethods(
    'clock',
    clock,
    ['now', 'setTimeout', 'clearTimeout'],
    'a Clock { now, setTimeout, clearTimeout }',
  );
  requireMethods(
    'logger',
    logger,
    ['error', 'warn', 'info', 'debug'],
    'a Logger { error, warn, info, debug }',
  );
  if (replicaId !== undefined && (typeof replicaId !== 'string' || replicaId === '')) {
    throw new ConfigError(
      'replicaId',
      `expected a non-empty string such as "pod-1", got ${describeValue(replicaId)}`,
    );
  }
  if (typeof taskIdRandom !== 'function') {
    throw new ConfigError(
      'taskIdRandom',
      `expected a function returning 6 lowercase hex digits (or leave it out), got ${describeValue(taskIdRandom)}`,
    );
  }
  return {
    serverName,
    poster,
    triggers,
    maxFinishedRetained,
    cancelGraceMs,
    cancelReplyMs,
    clock,
    logger,
    taskIdRandom,
    replicaId,
  };
}

/** @throws ConfigError naming `option` unless `value` has every one of the `names` methods. */
function requireMethods(option: string, value: unknown, names: readonly string[], expected: string): void {
  if (!hasMethods(value, names))
    throw new ConfigError(option, `expected ${expected}, got ${describeValue(value)}`);
}

/** @throws ConfigError naming `option` unless `value` is a number of milliseconds >= 0. */
function requireMs(option: string, value: unknown, fallback: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(
      option,
      `expected a number of milliseconds >= 0 (default ${fallback}), got ${describeValue(value)}`,
    );
  }
}
