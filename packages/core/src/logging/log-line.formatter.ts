/** How {@link formatLine} renders: one JSON object per line, or `time level message {fields}`. */
export type LineFormat = 'json' | 'pretty';

const SECRET_KEY = /secret|signature|authorization|password|token/i;
const COLORS: Readonly<Record<string, string>> = {
  error: '\u001b[31m',
  warn: '\u001b[33m',
  info: '\u001b[32m',
  debug: '\u001b[34m',
};
const RESET = '\u001b[39m';

/**
 * One log line, newline-terminated: `{"level","message",...base,...meta,"timestamp"}` as JSON,
 * or the pretty form. A field whose name looks secret (except `progressToken`) is written as
 * `[redacted]`; bigints become strings, errors `{name, message}`, cycles `[circular]`.
 */
export function formatLine(
  format: LineFormat,
  level: string,
  message: string,
  base: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
  now: Date,
): string {
  const timestamp = now.toISOString();
  const fields: Record<string, unknown> = format === 'json' ? { level, message } : {};
  if (base) copyRedacted(base, fields);
  if (meta) copyRedacted(meta, fields);
  if (format === 'json') {
    fields.timestamp = timestamp;
    return `${stringify(fields)}\n`;
  }
  const rest = Object.keys(fields).length > 0 ? ` ${stringify(fields)}` : '';
  return `${timestamp} ${COLORS[level] ?? ''}${level}${RESET} ${message}${rest}\n`;
}

function copyRedacted(from: Record<string, unknown>, to: Record<string, unknown>): void {
  for (const key of Object.keys(from)) {
    to[key] = SECRET_KEY.test(key) && key !== 'progressToken' ? '[redacted]' : from[key];
  }
}

function plain(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Error) return { name: v.name, message: v.message };
  return v;
}

function stringify(value: Record<string, unknown>): string {
  try {
    return JSON.stringify(value, plain);
  } catch {
    // A cycle: mark each object on the current path, so that shared (acyclic) ones still print.
    const path: object[] = [];
    return JSON.stringify(value, function replace(this: unknown, key: string, v: unknown) {
      const out = plain(key, v);
      if (typeof out !== 'object' || out === null) return out;
      while (path.length > 0 && path[path.length - 1] !== this) path.pop();
      if (path.includes(out)) return '[circular]';
      path.push(out);
      return out;
    });
  }
}
