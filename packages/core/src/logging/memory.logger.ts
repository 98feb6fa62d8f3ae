import { type Logger, type LogLevel, type LogMeta } from './logger.js';

/** One line recorded by {@link MemoryLogger}. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  meta: LogMeta;
}

/**
 * The in-memory test double of the {@link Logger} port: records every line (all levels are
 * enabled), children share the record.
 */
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
  isLevelEnabled(): boolean {
    return true;
  }

  /** The entries at `level`, optionally whose message contains `text`. */
  at(level: LogLevel, text?: string): LogEntry[] {
    return this.entries.filter((e) => e.level === level && (text === undefined || e.message.includes(text)));
  }

  private record(level: LogLevel, message: string, meta?: LogMeta): void {
    this.entries.push({ level, message, meta: { ...this.meta, ...meta } });
  }
}
