import { isJsonObject, type JsonObject } from '../models/json.types.js';

/** A short description of a value for error messages: `an array`, `a string ("soon")`, `null`, ... */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)})`;
    case 'number':
    case 'boolean':
      return `a ${typeof value} (${String(value)})`;
    case 'bigint':
      return `a bigint (${String(value)}n)`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default: {
      const proto: unknown = Object.getPrototypeOf(value);
      const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
      if (isJsonObject(value)) return 'an object';
      return typeof name === 'string' && name
        ? `an instance of ${name}`
        : 'an object that is not a plain object';
    }
  }
}

/** The result of {@link toFrozenJsonObject}. */
export type JsonCheck = { ok: true; value: JsonObject } | { ok: false; problem: string };

/**
 * Checks that `value` is a plain, JSON-serializable object and returns a deep-frozen copy of its
 * JSON form (what goes on the wire), or the problem (`got an array`, `is not JSON-serializable ...`).
 */
export function toFrozenJsonObject(value: unknown): JsonCheck {
  if (!isJsonObject(value)) return { ok: false, problem: `got ${describeValue(value)}` };
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return { ok: false, problem: `got an object that is not JSON-serializable (${errorMessage(error)})` };
  }
  const parsed: unknown = JSON.parse(text);
  if (!isJsonObject(parsed))
    return { ok: false, problem: `got an object whose JSON form is ${describeValue(parsed)}` };
  return { ok: true, value: deepFreeze(parsed) };
}

/** Freezes a JSON value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** JSON with object keys sorted, so that deep-equal JSON values give equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(JSON.parse(JSON.stringify(value) ?? 'null')));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as JsonObject)[key]);
  return sorted;
}

/** The message of an error, or the thrown value as a string. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  try {
    return String(error);
  } catch {
    return describeValue(error);
  }
}
