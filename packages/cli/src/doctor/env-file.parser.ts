import { parseEnv } from 'node:util';

/** A parsed `.env` file. */
export interface EnvFile {
  readonly values: Readonly<Record<string, string>>;
  /** Lines that could not be read, 1-based. */
  readonly errors: readonly { line: number; message: string }[];
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads a `.env` file exactly as the generated `main.ts` loads it (`process.loadEnvFile`, whose
 * parser is `util.parseEnv`): the values are Node's. Node reads a malformed line silently (it joins
 * it to the next key), so each line is also checked, and those Node would misread are reported.
 */
export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseEnv(text))) {
    if (KEY.test(key) && value !== undefined) values[key] = value;
  }
  return { values, errors: lineErrors(text.split(/\r?\n/)) };
}

/** `KEY=value` lines; a quoted value may span lines up to its closing quote, as Node reads it. */
function lineErrors(lines: readonly string[]): { line: number; message: string }[] {
  const errors: { line: number; message: string }[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = (lines[index] ?? '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const eq = body.indexOf('=');
    if (eq <= 0) {
      errors.push({ line: index + 1, message: 'expected KEY=value' });
      continue;
    }
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) {
      errors.push({ line: index + 1, message: `"${key}" is not a variable name (letters, digits, _)` });
      continue;
    }
    const value = body.slice(eq + 1).trim();
    const quote = value.charAt(0);
    if (quote !== '"' && quote !== "'" && quote !== '`') continue;
    if (value.indexOf(quote, 1) !== -1) continue;
    const closing = lines.findIndex((next, at) => at > index && next.includes(quote));
    if (closing === -1) {
      errors.push({ line: index + 1, message: `the value of ${key} has no closing quote` });
      continue;
    }
    index = closing;
  }
  return errors;
}
