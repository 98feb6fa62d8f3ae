import { type Writable } from 'node:stream';
import winston from 'winston';

/** Fields attached to a log line: server, task_id, event_id, ... */
export type LogMeta = Record<string, unknown>;

/**
 * The logging port. winston's logger satisfies it; so does {@link MemoryLogger} for tests.
 */
export interface Logger {
  error(message: string, meta?: LogMeta): unknown;
  warn(message: string, meta?: LogMeta): unknown;
  info(message: string, meta?: LogMeta): unknown;
  debug(message: string, meta?: LogMeta): unknown;
  child(meta: LogMeta): Logger;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

/** Options of {@link createLogger}. Unset values come from `LOG_LEVEL` and `LOG_FORMAT`. */
export interface LoggerOptions {
  level?: LogLevel;
  format?: 'json' | 'pretty';
  /** Where lines go; default stderr, so that stdout stays free for the stdio MCP transport. */
  stream?: NodeJS.WritableStream;
  defaultMeta?: LogMeta;
  env?: NodeJS.ProcessEnv;
}

const SECRET_KEY = /secret|signature|authorization|password|token/i;

/** Replaces the value of any secret-looking field with `[redacted]`. */
const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEY.test(key) && key !== 'progressToken') info[key] = '[redacted]';
  }
  return info;
});

/**
 * A winston logger writing JSON lines (default) or a pretty format (`LOG_FORMAT=pretty`) to
 * stderr, at `LOG_LEVEL` (default `info`). Fields whose names look secret are redacted.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const level = options.level ?? parseLevel(env.LOG_LEVEL);
  const pretty = (options.format ?? env.LOG_FORMAT) === 'pretty';
  const format = pretty
    ? winston.format.combine(
        redact(),
        winston.format.timestamp(),
        winston.format.colorize(),
        winston.format.printf(({ level: lvl, message, timestamp, ...meta }) => {
          const fields = Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : '';
          return `${String(timestamp)} ${lvl} ${String(message)}${fields}`;
        }),
      )
    : winston.format.combine(redact(), winston.format.timestamp(), winston.format.json());
  const stream = options.stream ?? process.stderr;
  return winston.createLogger({
    level,
    levels: { error: 0, warn: 1, info: 2, debug: 3 },
    format,
    defaultMeta: options.defaultMeta,
    transports: [new winston.transports.Stream({ stream: stream as Writable })],
  });
}

function parseLevel(value: string | undefined): LogLevel {
  const lower = value?.toLowerCase();
  return LEVELS.find((l) => l === lower) ?? 'info';
}

/** One line recorded by {@link MemoryLogger}. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  meta: LogMeta;
}

/** The in-memory adapter of the {@link Logger} port: records every line, children share the record. */
export class MemoryLogger implements Logger {
  readonly entries: LogEntry[];
  private readonly meta: LogMeta;

  constructor(meta: LogMeta = {}, entries: LogEntry[] = []) {
    this.meta = meta;
    this.entries = entries;
  }

  error(message: string, meta?: LogMeta): void {
    this.record('error', message, meta);
  }
  warn(message: string, meta?: LogMeta): void {
    this.record('warn', message, meta);
  }
  info(message: string, meta?: LogMeta): void {
    this.record('info', message, meta);
  }
  debug(message: string, meta?: LogMeta): void {
    this.record('debug', message, meta);
  }
  child(meta: LogMeta): MemoryLogger {
    return new MemoryLogger({ ...this.meta, ...meta }, this.entries);
  }

  /** The entries at `level`, optionally whose message contains `text`. */
  at(level: LogLevel, text?: string): LogEntry[] {
    return this.entries.filter((e) => e.level === level && (text === undefined || e.message.includes(text)));
  }

  private record(level: LogLevel, message: string, meta?: LogMeta): void {
    this.entries.push({ level, message, meta: { ...this.meta, ...meta } });
  }
}

/** A logger that discards everything. */
export const silentLogger: Logger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
};
