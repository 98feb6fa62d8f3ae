import { TaskArgumentError } from './task.error.js';
import { describeValue } from './task-json.util.js';
import { type TaskOrigin } from './task.types.js';

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new TaskArgumentError(`origin.${field}`, `expected a string, got ${describeValue(value)}`);
}

/**
 * A frozen copy of a start's origin (its tags copied into a new Map, so later changes by the caller
 * do not show), or undefined when there is none.
 * @throws TaskArgumentError when the origin is not `{ sessionId?, principal?, tags? }`
 */
export function freezeOrigin(origin: TaskOrigin | null | undefined): TaskOrigin | undefined {
  if (origin === undefined || origin === null) return undefined;
  if (typeof origin !== 'object') {
    throw new TaskArgumentError(
      'origin',
      `expected { sessionId?, principal?, tags? }, got ${describeValue(origin)}`,
    );
  }
  const sessionId = optionalText(origin.sessionId, 'sessionId');
  const principal = optionalText(origin.principal, 'principal');
  const { tags } = origin;
  if (tags !== undefined && !(tags instanceof Map)) {
    throw new TaskArgumentError('origin.tags', `expected a Map keyed by symbols, got ${describeValue(tags)}`);
  }
  // Built by assignment, not spreads: this runs on every task start.
  const copy: { sessionId?: string; principal?: string; tags?: ReadonlyMap<symbol, unknown> } = {};
  if (sessionId !== undefined) copy.sessionId = sessionId;
  if (principal !== undefined) copy.principal = principal;
  if (tags !== undefined && tags.size > 0) copy.tags = new Map(tags);
  return Object.freeze(copy);
}
