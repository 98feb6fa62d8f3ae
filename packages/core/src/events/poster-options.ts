import { type Clock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { type Logger } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type EventOutbox } from './event-outbox.port.js';
import { type EventTransport } from './event.types.js';

/** The numeric options of an EventPoster after defaults and validation. */
export interface ValidPosterOptions {
  serverName: string;
  transport: EventTransport;
  maxQueue: number;
  maxQueueBytes: number;
  lanes: number;
  /** Undefined: the transport's `maxInFlight`, else {@link POSTER_DEFAULTS}. */
  maxInFlight: number | undefined;
  retryDelaysMs: readonly number[];
  retryEveryMs: number;
  maxRetryMs: number;
}

/** Options of {@link EventPoster}; every number is in milliseconds unless named otherwise. */
export interface EventPosterOptions {
  /** The server name (`X-RVC-Server`), for logs. */
  serverName: string;
  transport: EventTransport;
  clock?: Clock;
  logger?: Logger;
  /**
   * Most events waiting across all lanes (default 10 000); the events being sent or waiting for
   * a retry, at most one per lane, come on top.
   */
  maxQueue?: number;
  /**
   * Most bytes the queued events may hold (default 64 MiB; env `RVC_EVENT_QUEUE_MAX_BYTES`). An
   * event is charged twice its JSON body plus 512 bytes; one larger than the budget is dropped.
   */
  maxQueueBytes?: number;
  /**
   * Delivery lanes; a task's events always use the same lane and a lane sends one event at a time,
   * so a failing event holds up only the tasks of its lane while it waits for its retry
   * (default 256; 1 = one global FIFO).
   */
  lanes?: number;
  /**
   * Most events being sent at once across all lanes (default: the transport's `maxInFlight`, else
   * 8). A lane waiting to retry uses none.
   */
  maxInFlight?: number;
  /** Waits before the 2nd, 3rd, ... attempts (default 500, 2000, 8000). */
  retryDelaysMs?: readonly number[];
  /** Wait between attempts once `retryDelaysMs` is used up; also the longest Retry-After honoured (30 000). */
  retryEveryMs?: number;
  /** Retry cap per event, counted from when it was posted (default 600 000 = 10 minutes). */
  maxRetryMs?: number;
  /**
   * A durable outbox (e.g. `createRedisEventOutbox()` of `@robot-mcp-kit/redis`): `post` then also
   * appends each event there and returns the write to await, events are removed there once
   * delivered or given up, and `open()` takes over the events a dead replica left. The poster owns
   * it: `aclose()` closes it. Left out (the default): memory only, exactly as before.
   */
  outbox?: EventOutbox;
  /**
   * Asked before each delivery attempt of an event; an attempt it answers `false` is not sent (a
   * failed attempt, retried on the schedule). With a task store the server passes "the event's seq
   * is stored and this replica still owns its tasks": a replica paused past its lease sends nothing
   * until a renewal says it still holds it, and no event goes out before a survivor could see its seq.
   */
  deliveryGate?: (event: TaskEvent) => Promise<boolean>;
}

/** Options of `EventPoster.fromEnv`. */
export interface EventPosterEnvOptions extends Omit<EventPosterOptions, 'serverName' | 'transport'> {
  env?: NodeJS.ProcessEnv;
  /** Per-request timeout of the HTTP transport (default `RVC_EVENT_TIMEOUT_MS`, else 10 000). */
  timeoutMs?: number;
}

export const POSTER_DEFAULTS = {
  maxQueue: 10_000,
  maxQueueBytes: 64 * 1024 * 1024,
  lanes: 256,
  maxInFlight: 8,
  retryDelaysMs: [500, 2000, 8000] as readonly number[],
  retryEveryMs: 30_000,
  maxRetryMs: 600_000,
};

/** Applies defaults and checks every option. @throws ConfigError naming the bad option. */
export function validatePosterOptions(options: EventPosterOptions): ValidPosterOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('options', 'must be an object such as { serverName: "navigation", transport }');
  }
  const { serverName, transport } = options;
  if (typeof serverName !== 'string' || serverName.trim() === '') {
    throw new ConfigError('serverName', 'must be a non-empty string such as "navigation"');
  }
  if (typeof transport !== 'object' || transport === null || typeof transport.send !== 'function') {
    throw new ConfigError(
      'transport',
      'must be an EventTransport (an object with send()); use EventPoster.fromEnv() to build one from RVC_CALLBACK_URL',
    );
  }
  const retryDelaysMs = options.retryDelaysMs ?? POSTER_DEFAULTS.retryDelaysMs;
  if (
    !Array.isArray(retryDelaysMs) ||
    !retryDelaysMs.every((d) => typeof d === 'number' && Number.isFinite(d) && d >= 0)
  ) {
    throw new ConfigError(
      'retryDelaysMs',
      'must be an array of non-negative numbers of ms, e.g. [500, 2000, 8000]',
    );
  }
  return {
    serverName,
    transport,
    maxQueue: integer('maxQueue', options.maxQueue, POSTER_DEFAULTS.maxQueue, 1),
    maxQueueBytes: integer('maxQueueBytes', options.maxQueueBytes, POSTER_DEFAULTS.maxQueueBytes, 64 * 1024),
    lanes: integer('lanes', options.lanes, POSTER_DEFAULTS.lanes, 1),
    maxInFlight:
      options.maxInFlight === undefined
        ? undefined
        : integer('maxInFlight', options.maxInFlight, POSTER_DEFAULTS.maxInFlight, 1),
    retryDelaysMs: [...(retryDelaysMs as readonly number[])],
    retryEveryMs: number('retryEveryMs', options.retryEveryMs, POSTER_DEFAULTS.retryEveryMs, true),
    maxRetryMs: number('maxRetryMs', options.maxRetryMs, POSTER_DEFAULTS.maxRetryMs, false),
  };
}

/**
 * Poster limits from the environment: `RVC_EVENT_QUEUE_MAX_BYTES` (an integer number of bytes,
 * at least 65536). @throws ConfigError naming the variable, with an example.
 */
export function posterOptionsFromEnv(env: NodeJS.ProcessEnv): Pick<EventPosterOptions, 'maxQueueBytes'> {
  const raw = env.RVC_EVENT_QUEUE_MAX_BYTES?.trim();
  if (raw === undefined || raw === '') return {};
  const bytes = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(bytes) || bytes < 64 * 1024) {
    throw new ConfigError(
      'RVC_EVENT_QUEUE_MAX_BYTES',
      `must be an integer number of bytes >= 65536, e.g. 67108864 (64 MiB); got ${JSON.stringify(raw)}`,
    );
  }
  return { maxQueueBytes: bytes };
}

function integer(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new ConfigError(name, `must be an integer >= ${min} (default ${fallback}); got ${String(value)}`);
  }
  return v;
}

function number(name: string, value: number | undefined, fallback: number, positive: boolean): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (positive && v === 0)) {
    const bound = positive ? '> 0' : '>= 0';
    throw new ConfigError(
      name,
      `must be a number of milliseconds ${bound} (default ${fallback}); got ${String(value)}`,
    );
  }
  return v;
}

/**
 * The wait after failed attempt number `attempt` (1-based): the schedule's delay, raised by a
 * server's Retry-After up to `retryEveryMs` — `min(max(scheduled, retryAfter), retryEveryMs)`,
 * never below the scheduled delay.
 */
export function retryDelay(
  schedule: { retryDelaysMs: readonly number[]; retryEveryMs: number },
  attempt: number,
  retryAfterMs: number | undefined,
): number {
  const scheduled = schedule.retryDelaysMs[attempt - 1] ?? schedule.retryEveryMs;
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs <= 0) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, schedule.retryEveryMs));
}
