import { type JsonSafetyLimits, jsonSafetyProblem } from '../tasks/task-json.util.js';

/**
 * The kit's JSON limits, in one place: how deep and how large (estimated bytes of JSON) what a
 * caller sends may be, per layer that checks it (each also refuses `__proto__`, `constructor` and
 * `prototype` keys at any depth).
 */
export const JSON_LIMITS = Object.freeze({
  /** A JSON-RPC request's `params`, as parsed from the wire, before any handler sees them. */
  params: Object.freeze({ maxDepth: 40, maxBytes: 4 * 1024 * 1024 }),
  /** A tool call's arguments. */
  arguments: Object.freeze({ maxDepth: 32, maxBytes: 1_000_000 }),
  /**
   * One trigger: `maxBytes` of serialized JSON (each trigger is echoed in every `trigger_fired`
   * event it causes); nesting up to `maxDepth` (the built-in triggers are flat).
   */
  trigger: Object.freeze({ maxDepth: 16, maxBytes: 16_384 }),
} satisfies Record<string, JsonSafetyLimits>);

/** A layer of {@link JSON_LIMITS}. */
export type JsonLimitKind = keyof typeof JSON_LIMITS;

/**
 * The first problem of `value` under the limits of `kind` ("path: what is wrong"), or `undefined`.
 * A trigger's size is estimated against twice its limit here: its exact serialized size is checked
 * once it is known to be safe to serialize.
 */
export function jsonLimitProblem(kind: JsonLimitKind, value: unknown, path: string): string | undefined {
  const limits = JSON_LIMITS[kind];
  return jsonSafetyProblem(
    value,
    kind === 'trigger' ? { maxDepth: limits.maxDepth, maxBytes: limits.maxBytes * 2 } : limits,
    path,
  );
}
