/** A parsed `.env` file. */
export interface EnvFile {
  readonly values: Readonly<Record<string, string>>;
  /** Lines that could not be read, 1-based. */
  readonly errors: readonly { line: number; message: string }[];
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Reads `KEY=value` lines, as `node --env-file` and systemd's EnvironmentFile mostly agree on:
 * blank lines and `#` comments are skipped, `export ` is allowed, values may be unquoted (an
 * inline ` #` starts a comment), single-quoted (literal) or double-quoted (`\n`, `\"` escapes).
 * Later lines win. Values spanning lines are not supported.
 */
export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  const errors: { line: number; message: string }[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const eq = body.indexOf('=');
    if (eq <= 0) {
      errors.push({ line: index + 1, message: 'expected KEY=value' });
      return;
    }
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) {
      errors.push({ line: index + 1, message: `"${key}" is not a variable name (letters, digits, _)` });
      return;
    }
    const value = parseValue(body.slice(eq + 1).trim());
    if (value === undefined) {
      errors.push({ line: index + 1, message: `the value of ${key} has no closing quote` });
      return;
    }
    values[key] = value;
  });
  return { values, errors };
}

function parseValue(raw: string): string | undefined {
  const quote = raw.charAt(0);
  if (quote === "'") {
    const end = raw.indexOf("'", 1);
    return end === -1 ? undefined : raw.slice(1, end);
  }
  if (quote === '"') {
    let out = '';
    for (let i = 1; i < raw.length; i += 1) {
      const ch = raw.charAt(i);
      if (ch === '"') return out;
      if (ch === '\\' && i + 1 < raw.length) {
        const next = raw.charAt(i + 1);
        out += ESCAPES[next] ?? `\\${next}`;
        i += 1;
      } else {
        out += ch;
      }
    }
    return undefined;
  }
  const comment = raw.search(/\s#/);
  return (comment === -1 ? raw : raw.slice(0, comment)).trim();
}
