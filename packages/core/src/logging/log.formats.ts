import winston from 'winston';

/** How the kit's lines look: one JSON object per line, or `time level message {fields}` for terminals. */
export type LogFormat = 'json' | 'pretty';

const SECRET_KEY = /secret|signature|authorization|password|token/i;
const MESSAGE = Symbol.for('message');

/**
 * A winston format that writes `[redacted]` for every field whose name looks secret (except
 * `progressToken`), in the call's metadata and in a child's or the logger's default metadata alike.
 */
export const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEY.test(key) && key !== 'progressToken') info[key] = '[redacted]';
  }
  return info;
});

/** JSON for values `JSON.stringify` cannot write: bigints as strings, errors as `{name, message}`. */
function plain(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/** winston's JSON format (cycle-safe), fields in insertion order, with {@link plain} values. */
const json = (): winston.Logform.Format => winston.format.json({ replacer: plain, deterministic: false });

/** `2026-01-01T00:00:00.000Z warn message {"field":1}`, the level coloured. */
function readable(): winston.Logform.Format {
  const fieldsJson = json();
  return winston.format.printf((info) => {
    const { timestamp, level, message, ...fields } = info;
    const rest =
      Object.keys(fields).length > 0
        ? ` ${String((fieldsJson.transform({ ...fields } as winston.Logform.TransformableInfo, fieldsJson.options) as Record<symbol, unknown>)[MESSAGE])}`
        : '';
    return `${String(timestamp)} ${level} ${String(message)}${rest}`;
  });
}

/**
 * The kit's winston format: secret-looking fields redacted, an ISO `timestamp`, then JSON lines
 * (`{"level","message",...fields,"timestamp"}`) or the readable form. An author building their
 * own winston logger can use it too.
 */
export function kitLogFormat(format: LogFormat = 'json'): winston.Logform.Format {
  const { combine, timestamp, colorize } = winston.format;
  if (format === 'pretty')
    return combine(redactSecrets(), timestamp(), colorize({ level: true }), readable());
  return combine(redactSecrets(), timestamp(), json());
}
