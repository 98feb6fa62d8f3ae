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

/**
 * The largest JSON form of a payload or result, in UTF-8 bytes. An event must fit the app's
 * receiver (it refuses bodies over 1 MiB by default), or it would be refused and retried for the
 * whole retry cap, holding up the events behind it.
 */
export const MAX_PAYLOAD_BYTES = 1_000_000;

/** The result of {@link toFrozenJsonObject}. */
export type JsonCheck = { ok: true; value: JsonObject } | { ok: false; problem: string };

/**
 * Checks that `value` is a plain, JSON-serializable object and returns a deep-frozen copy of its
 * JSON form (what goes on the wire), or the problem (`got an array`, `is not JSON-serializable ...`).
 */
export function toFrozenJsonObject(value: unknown): JsonCheck {
  if (!isJsonObject(value)) return { ok: false, problem: `got ${describeValue(value)}` };
  const flat = flatJsonCopy(value);
  if (flat) return { ok: true, value: Object.freeze(flat) };
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return { ok: false, problem: `got an object that is not JSON-serializable (${errorMessage(error)})` };
  }
  const bytes = text.length > MAX_PAYLOAD_BYTES / 3 ? Buffer.byteLength(text) : 0;
  if (bytes > MAX_PAYLOAD_BYTES) {
    return {
      ok: false,
      problem:
        `got an object whose JSON is ${bytes} bytes, over the ${MAX_PAYLOAD_BYTES}-byte limit of an event ` +
        '(the app refuses larger events); send large data by reference, e.g. a file path or URL',
    };
  }
  const parsed: unknown = JSON.parse(text);
  if (!isJsonObject(parsed))
    return { ok: false, problem: `got an object whose JSON form is ${describeValue(parsed)}` };
  return { ok: true, value: deepFreeze(parsed) };
}

/**
 * Most characters (keys and strings) a flat copy takes: even escaped six-fold its JSON stays far
 * under {@link MAX_PAYLOAD_BYTES}; more takes the JSON round trip and its size check.
 */
const FLAT_MAX_CHARS = 100_000;
const FLAT_MAX_KEYS = 64;

/**
 * The JSON form of a small flat object — own data properties holding strings, finite numbers,
 * booleans, null or undefined (dropped, as JSON drops it) — built without the JSON round trip
 * (profiled: most task results, `{ arrived: true }`, spent ~2 µs in `stringify` + `parse`); the
 * same keys, order and values `JSON.parse(JSON.stringify(value))` gives (`-0` becomes `0`).
 * Undefined for anything else (nested values, getters, `toJSON`, long strings, a `__proto__` key):
 * the caller takes the round trip.
 */
function flatJsonCopy(value: JsonObject): JsonObject | undefined {
  if ('toJSON' in value) return undefined;
  const keys = Object.keys(value);
  if (keys.length > FLAT_MAX_KEYS) return undefined;
  const copy: JsonObject = {};
  let chars = 0;
  for (const key of keys) {
    if (key === '__proto__') return undefined;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor || !('value' in descriptor)) return undefined;
    const v: unknown = descriptor.value;
    chars += key.length;
    if (typeof v === 'string') {
      chars += v.length;
      copy[key] = v;
    } else if (typeof v === 'number') {
      copy[key] = Number.isFinite(v) ? v + 0 : null;
    } else if (typeof v === 'boolean' || v === null) copy[key] = v;
    else if (v !== undefined) return undefined;
  }
  return chars > FLAT_MAX_CHARS ? undefined : copy;
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

const MAX_MESSAGE_CHARS = 2000;

/**
 * The message of an error, or the thrown value as a string, cut to 2000 characters. Never throws,
 * whatever was thrown (a Proxy, an Error whose `message` getter throws, ...).
 */
export function errorMessage(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? String(error.message || error.name) : String(error);
  } catch {
    try {
      text = describeValue(error);
    } catch {
      text = 'a thrown value that cannot be read';
    }
  }
  if (text.length <= MAX_MESSAGE_CHARS) return text;
  return `${text.slice(0, MAX_MESSAGE_CHARS)}... (${text.length - MAX_MESSAGE_CHARS} more characters)`;
}

/** Keys refused anywhere in JSON a caller sends: they could pollute prototypes. */
export const FORBIDDEN_JSON_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The limits of {@link jsonSafetyProblem}. */
export interface JsonSafetyLimits {
  /** Deepest nesting of arrays and objects (the value itself is level 0). */
  readonly maxDepth: number;
  /** Largest size, estimated from the strings, keys and scalars walked (about the JSON length). */
  readonly maxBytes: number;
}

const MAX_PATH_CHARS = 120;

/**
 * The one safety check for JSON a caller sends (tool arguments, triggers, task metadata): nesting
 * deeper than `maxDepth`, more than about `maxBytes` of JSON, or a key named `__proto__`,
 * `constructor` or `prototype` at any depth (own keys, so a `"__proto__"` that `JSON.parse` kept
 * is found). Iterative: hostile nesting cannot exhaust the stack. Returns the first problem as
 * `<path>: <what>` (`path` names the value, e.g. `arguments` or `triggers[0]`), or undefined.
 */
export function jsonSafetyProblem(
  value: unknown,
  limits: JsonSafetyLimits,
  path: string,
): string | undefined {
  if (limits.maxDepth <= MAX_RECURSIVE_DEPTH) return new SafetyWalk(limits, path).visit(value, 0);
  return iterativeSafetyProblem(value, limits, path);
}

/** Limits up to this depth are walked recursively (allocation-free); deeper ones with a stack. */
const MAX_RECURSIVE_DEPTH = 1000;

/**
 * The recursive walk of {@link jsonSafetyProblem}, for the usual small `maxDepth` (32, 40): the
 * recursion never goes deeper than the limit, and safe JSON costs no allocation but `Object.keys`.
 * Visits values in the order of the iterative walk, so both find the same first problem.
 */
class SafetyWalk {
  private bytes = 0;
  /** Keys and indexes from the root to the value being visited: a path is built only for a problem. */
  private readonly steps: (string | number)[] = [];

  constructor(
    private readonly limits: JsonSafetyLimits,
    private readonly root: string,
  ) {}

  visit(value: unknown, depth: number): string | undefined {
    if (typeof value === 'string') this.bytes += value.length + 2;
    else if (value === null || typeof value !== 'object') this.bytes += 8;
    else if (depth >= this.limits.maxDepth) {
      return `${stepsPath(this.root, this.steps) || 'value'}: nested deeper than ${this.limits.maxDepth} levels`;
    } else if (Array.isArray(value)) {
      this.bytes += 2 + value.length;
      return this.tooLarge() ?? this.children(value, undefined, depth);
    } else {
      this.bytes += 2;
      const keys = Object.keys(value);
      for (const key of keys) {
        if (FORBIDDEN_JSON_KEYS.has(key)) {
          const at = childPath(stepsPath(this.root, this.steps), keyStep(key));
          return `${at}: the key "${key}" is not allowed (it could pollute prototypes)`;
        }
        this.bytes += key.length + 4;
      }
      return this.tooLarge() ?? this.children(value as Record<string, unknown>, keys, depth);
    }
    return this.tooLarge();
  }

  private children(
    value: readonly unknown[] | Record<string, unknown>,
    keys: readonly string[] | undefined,
    depth: number,
  ): string | undefined {
    const count = keys ? keys.length : (value as readonly unknown[]).length;
    for (let i = 0; i < count; i += 1) {
      const step = keys ? keys[i]! : i;
      this.steps.push(step);
      const problem = this.visit((value as Record<string | number, unknown>)[step], depth + 1);
      if (problem !== undefined) return problem;
      this.steps.pop();
    }
    return undefined;
  }

  private tooLarge(): string | undefined {
    const { maxBytes } = this.limits;
    return this.bytes > maxBytes ? `${this.root || 'value'}: more than ${maxBytes} bytes of JSON` : undefined;
  }
}

/** The iterative walk of {@link jsonSafetyProblem}: any depth limit, without exhausting the stack. */
function iterativeSafetyProblem(value: unknown, limits: JsonSafetyLimits, path: string): string | undefined {
  // Paths are built only for a problem: a walk of safe JSON allocates one small item per value.
  const stack: SafetyItem[] = [{ value, depth: 0, parent: undefined, step: '' }];
  let bytes = 0;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (typeof current === 'string') bytes += current.length + 2;
    else if (current === null || typeof current !== 'object') bytes += 8;
    else if (item.depth >= limits.maxDepth) {
      return `${pathOf(item, path) || 'value'}: nested deeper than ${limits.maxDepth} levels`;
    } else if (Array.isArray(current)) {
      bytes += 2 + current.length;
      for (let i = current.length - 1; i >= 0; i -= 1)
        stack.push({ value: current[i], depth: item.depth + 1, parent: item, step: i });
    } else {
      bytes += 2;
      const keys = Object.keys(current);
      for (const key of keys) {
        if (FORBIDDEN_JSON_KEYS.has(key)) {
          const at = childPath(pathOf(item, path), keyStep(key));
          return `${at}: the key "${key}" is not allowed (it could pollute prototypes)`;
        }
        bytes += key.length + 4;
      }
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i]!;
        const child = (current as Record<string, unknown>)[key];
        stack.push({ value: child, depth: item.depth + 1, parent: item, step: key });
      }
    }
    if (bytes > limits.maxBytes) return `${path || 'value'}: more than ${limits.maxBytes} bytes of JSON`;
  }
  return undefined;
}

/** One value met by {@link jsonSafetyProblem}: its parent and its key or index there. */
interface SafetyItem {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: SafetyItem | undefined;
  readonly step: string | number;
}

/** The path of `item` under `root`, as the walk names it (`arguments.waypoints[2].x`). */
function pathOf(item: SafetyItem, root: string): string {
  const steps: (string | number)[] = [];
  for (let at: SafetyItem | undefined = item; at?.parent !== undefined; at = at.parent) steps.push(at.step);
  return stepsPath(root, steps.reverse());
}

/** The path of the value reached from `root` by `steps` (keys and indexes, outermost first). */
function stepsPath(root: string, steps: readonly (string | number)[]): string {
  let path = root;
  for (const step of steps) path = childPath(path, typeof step === 'number' ? `[${step}]` : keyStep(step));
  return path;
}

function keyStep(key: string): string {
  return `.${shortText(key, 40)}`;
}

function childPath(parent: string, step: string): string {
  if (parent === '') return step.startsWith('.') ? step.slice(1) : step;
  if (parent.length >= MAX_PATH_CHARS) return parent.endsWith('…') ? parent : `${parent}…`;
  return `${parent}${step}`;
}

/** `text` cut to `max` characters, with a note of how long it was (for caller input in messages). */
export function shortText(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} characters)`;
}

/**
 * The compact JSON of `value` cut to `max` characters, for logging caller-sent content (a trigger,
 * arguments) without one log byte per byte sent. Never throws.
 */
export function jsonPrefix(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch (error) {
    return `(not serializable: ${shortText(errorMessage(error), 80)})`;
  }
  return shortText(text, max);
}
