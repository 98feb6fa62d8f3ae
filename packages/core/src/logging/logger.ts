import winston from 'winston';
import { kitLogFormat, type LogFormat } from './log.formats.js';

/** Fields attached to a log line: server, task_id, event_id, ... */
export type LogMeta = Record<string, unknown>;

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
/** The levels `LOG_LEVEL` may name, most severe first (the server checks it, the CLI's doctor too). */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(['error', 'warn', 'info', 'debug'] as const);

/**
 * The kit's logging port, the part of winston's `Logger` the kit calls (a winston logger fits it).
 * {@link createLogger} gives a thin face over winston; `MemoryLogger` records lines for tests.
 * Hot paths ask {@link Logger.isLevelEnabled} before they build a line's metadata.
 */
export interface Logger {
  error(message: string, meta?: LogMeta): unknown;
  warn(message: string, meta?: LogMeta): unknown;
  info(message: string, meta?: LogMeta): unknown;
  debug(message: string, meta?: LogMeta): unknown;
  child(meta: LogMeta): Logger;
  isLevelEnabled(level: LogLevel): boolean;
}

/** Options of {@link createLogger}. Unset values come from `LOG_LEVEL` and `LOG_FORMAT`. */
export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go; default stderr, so that stdout stays free for the stdio MCP transport. */
  stream?: NodeJS.WritableStream;
  /** Fields on every line (a child of the winston logger carries them). */
  defaultMeta?: LogMeta;
  env?: NodeJS.ProcessEnv;
  /** More winston transports (a file, syslog, ...) beside the stream; they get the same lines. */
  transports?: winston.transport[];
  /**
   * An author's own winston logger: the kit logs through it (its level, format and transports)
   * instead of building one; `level`, `format`, `stream` and `transports` are then ignored.
   */
  winston?: winston.Logger;
}

/**
 * The {@link Logger} face of a winston logger. A call at a disabled level returns after winston's
 * `isLevelEnabled`: its metadata is never read, merged or formatted (winston itself would merge
 * and format a line before its transports drop it). Lines go through `log(info)`, so a `%` in a
 * message is not taken for a format token.
 */
class WinstonLogger implements Logger {
  constructor(readonly winston: winston.Logger) {}

  error(message: string, meta?: LogMeta): void {
    this.line('error', message, meta);
  }
  warn(message: string, meta?: LogMeta): void {
    this.line('warn', message, meta);
  }
  info(message: string, meta?: LogMeta): void {
    this.line('info', message, meta);
  }
  debug(message: string, meta?: LogMeta): void {
    this.line('debug', message, meta);
  }
  child(meta: LogMeta): Logger {
    return new WinstonLogger(this.winston.child(meta));
  }
  isLevelEnabled(level: LogLevel): boolean {
    return this.winston.isLevelEnabled(level);
  }

  private line(level: LogLevel, message: string, meta: LogMeta | undefined): void {
    if (!this.winston.isLevelEnabled(level)) return;
    this.winston.log(Object.assign({ level, message }, meta, { level, message }));
  }
}

/**
 * The kit's logger: a winston logger writing JSON lines (default) or a readable format
 * (`LOG_FORMAT=pretty`) to stderr — never stdout, which the stdio transport owns — and to any
 * extra winston `transports`, at `LOG_LEVEL` (default `info`), secret-looking fields redacted.
 * With `winston`, an author's own winston logger is used instead. Calls below the level build
 * nothing.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const root = options.winston ?? buildWinston(options);
  return new WinstonLogger(options.defaultMeta ? root.child({ ...options.defaultMeta }) : root);
}

function buildWinston(options: LoggerOptions): winston.Logger {
  const env = options.env ?? process.env;
  return winston.createLogger({
    level: options.level ?? parseLevel(env.LOG_LEVEL),
    format: kitLogFormat((options.format ?? env.LOG_FORMAT) === 'pretty' ? 'pretty' : 'json'),
    transports: [
      new winston.transports.Stream({ stream: options.stream ?? process.stderr }),
      ...(options.transports ?? []),
    ],
  });
}

/**
 * The kit's {@link Logger} for what an author passed: a winston logger gets the kit's face (with
 * `defaultMeta` on a child), any other {@link Logger} (a `MemoryLogger`, ...) is used as it is.
 */
export function asLogger(logger: Logger | winston.Logger, defaultMeta?: LogMeta): Logger {
  if (logger instanceof WinstonLogger || !isWinston(logger)) return logger;
  return createLogger({ winston: logger, ...(defaultMeta ? { defaultMeta } : {}) });
}

function isWinston(logger: Logger | winston.Logger): logger is winston.Logger {
  const candidate = logger as Partial<winston.Logger>;
  return (
    typeof candidate.add === 'function' && typeof candidate.log === 'function' && 'transports' in candidate
  );
}

/** A logger that discards everything. */
export const silentLogger: Logger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
  isLevelEnabled: () => false,
};

function parseLevel(value: string | undefined): LogLevel {
  const lower = value?.toLowerCase();
  return LOG_LEVELS.find((l) => l === lower) ?? 'info';
}
