import { TASK_STATES, type TaskState } from '../models/schema.js';
import { TaskArgumentError } from './task.error.js';
import { describeValue } from './task-json.util.js';

/** Checks the arguments of `TaskManager.start`; returns `estDurationS` as a number or null. */
export function checkStartArguments(tool: unknown, body: unknown, estDurationS: unknown): number | null {
  if (typeof tool !== 'string' || tool.length === 0) {
    throw new TaskArgumentError(
      'tool',
      `expected the non-empty name of the tool, got ${describeValue(tool)}`,
    );
  }
  if (typeof body !== 'function') {
    throw new TaskArgumentError(
      'body',
      `expected an async function (ctx) => result, got ${describeValue(body)}`,
    );
  }
  if (estDurationS === undefined || estDurationS === null) return null;
  if (typeof estDurationS !== 'number' || !Number.isFinite(estDurationS) || estDurationS < 0) {
    throw new TaskArgumentError(
      'estDurationS',
      `expected the estimated duration in seconds (a number >= 0) or null, got ${describeValue(estDurationS)}`,
    );
  }
  return estDurationS;
}

/** Checks the `states` filter of `TaskManager.list`; throws naming the unknown state and the valid ones. */
export function checkStates(states: readonly TaskState[]): Set<TaskState> {
  if (!Array.isArray(states)) {
    throw new TaskArgumentError('states', `expected an array of task states, got ${describeValue(states)}`);
  }
  for (const state of states as unknown[]) {
    if (!(TASK_STATES as readonly unknown[]).includes(state)) {
      throw new TaskArgumentError(
        'states',
        `unknown task state ${typeof state === 'string' ? `"${state}"` : describeValue(state)}; ` +
          `expected some of ${TASK_STATES.join(', ')}`,
      );
    }
  }
  return new Set(states);
}
