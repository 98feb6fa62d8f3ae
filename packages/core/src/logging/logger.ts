import { createRequire } from 'node:module';
import { type Writable } from 'node:stream';
import type winston from 'winston';
import { formatLine, type LineFormat } from './log-line.formatter.js';

/** Fields attached to a log line: server, task_id, event_id, ... */
export type LogMeta = Record<string, unknown>;

/**
 * The logging port. {@link createLogger} gives the stream adapter; {@link MemoryLogger} records
 * lines for tests.
 */
export interface Logger {
  error(message: string, meta?: LogMeta): unknown;
  warn(message: string, meta?: LogMeta): unknown;
  info(message: string, meta?: LogMeta): unknown;
  debug(message: string, meta?: LogMeta): unknown;
  child(meta: LogMeta): Logger;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
/** The levels `LOG_LEVEL` may name, most severe first (the server checks it, the CLI's doctor too). */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(['error', 'warn', 'info', 'debug'] as const);
const RANK: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2, debug: 3 };

/** Options of {@link createLogger}. Unset values come from `LOG_LEVEL` and `LOG_FORMAT`. */
export interface LoggerOptions {
  level?: LogLevel;
  format?: 'json' | 'pretty';
  /** Where lines go; default stderr, so that stdout stays free for the stdio MCP transport. */
  stream?: NodeJS.WritableStream;
  defaultMeta?: LogMeta;
  env?: NodeJS.ProcessEnv;
  /** More winston transports (a file, syslog, ...) beside the stream; they get the same lines. */
  transports?: winston.transport[];
}

/** What every logger of one {@link createLogger} tree shares: the level, the format, the writer. */
interface LogSink {
  readonly rank: number;
  readonly format: LineFormat;
  /** Writes one formatted line (it ends with a newline). */
  readonly write: (level: LogLevel, message: string, line: string) => void;
}

/** The `info` key that carries the line {@link formatLine} built. */
const LINE = Symbol('rmk.line');
type LineInfo = winston.Logform.TransformableInfo & { [LINE]?: string };

/**
 * With {@link LoggerOptions.transports}, winston writes the lines to the stream and to those
 * transports; the kit formats them itself, once, only for enabled levels. winston is loaded only
 * then (the caller built its transports with it): a server that logs to stderr alone does not load
 * it, which keeps ~100 ms out of its cold start.
 */
function winstonSink(level: LogLevel, stream: NodeJS.WritableStream, extra: winston.transport[]) {
  const w = createRequire(import.meta.url)('winston') as typeof winston;
  const line = w.format((info: LineInfo) => {
    (info as Record<symbol, unknown>)[Symbol.for('message')] = info[LINE] ?? String(info.message);
    return info;
  });
  return w.createLogger({
    level,
    levels: RANK,
    format: line(),
    transports: [new w.transports.Stream({ stream: stream as Writable, eol: '' }), ...extra],
  });
}

/**
 * The stream (and winston) adapter of the {@link Logger} port. A call at a disabled level returns after one
 * comparison: its metadata is never read, merged, redacted or serialized.
 */
class StreamLogger implements Logger {
  constructor(
    private readonly sink: LogSink,
    private readonly base: LogMeta | undefined,
  ) {}

  error(message: string, meta?: LogMeta): void {
    this.write('error', message, meta);
  }
  warn(message: string, meta?: LogMeta): void {
    if (this.sink.rank >= 1) this.write('warn', message, meta);
  }
  info(message: string, meta?: LogMeta): void {
    if (this.sink.rank >= 2) this.write('info', message, meta);
  }
  debug(message: string, meta?: LogMeta): void {
    if (this.sink.rank >= 3) this.write('debug', message, meta);
  }
  child(meta: LogMeta): Logger {
    return new StreamLogger(this.sink, this.base ? { ...this.base, ...meta } : { ...meta });
  }

  private write(level: LogLevel, message: string, meta: LogMeta | undefined): void {
    this.sink.write(
      level,
      message,
      formatLine(this.sink.format, level, message, this.base, meta, new Date()),
    );
  }
}

/**
 * A logger writing JSON lines (default) or a pretty format (`LOG_FORMAT=pretty`) to stderr (through
 * winston, with its extra `transports`, when some are given),
 * at `LOG_LEVEL` (default `info`). Fields whose names look secret are redacted. Calls below the
 * level cost one comparison: nothing is read, merged or formatted before the level check.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const level = options.level ?? parseLevel(env.LOG_LEVEL);
  const format: LineFormat = (options.format ?? env.LOG_FORMAT) === 'pretty' ? 'pretty' : 'json';
  const stream = options.stream ?? process.stderr;
  const extra = options.transports ?? [];
  let write: LogSink['write'];
  if (extra.length > 0) {
    const pipeline = winstonSink(level, stream, extra);
    write = (lineLevel, message, line) =>
      void pipeline.log({ level: lineLevel, message, [LINE]: line } as winston.LogEntry);
  } else {
    write = (_level, _message, line) => void stream.write(line);
  }
  const sink: LogSink = { rank: RANK[level], format, write };
  return new StreamLogger(sink, options.defaultMeta ? { ...options.defaultMeta } : undefined);
}

function parseLevel(value: string | undefined): LogLevel {
  const lower = value?.toLowerCase();
  return LOG_LEVELS.find((l) => l === lower) ?? 'info';
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
