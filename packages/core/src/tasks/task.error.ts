import { RobotMcpKitError } from '../errors/kit.error.js';
import { TaskFailure } from '../models/task-failure.model.js';
import { describeValue } from './task-json.util.js';

/** Options of {@link TaskError}. */
export interface TaskErrorOptions {
  /** `false` tells the planner not to bother replanning around this failure. Default `true`. */
  recoverable?: boolean;
  /** Recovery hints for the planner, e.g. `["ask_reception", "retry_after_s:300"]`. Default `[]`. */
  suggestions?: readonly string[];
}

/**
 * Throw from a task body to fail the task with structured information: the task becomes `failed`
 * and a `task_failed` event carries {@link TaskError.toFailure}.
 *
 * @example
 * throw new TaskError('DOOR_CLOSED', 'The door to room 4 is closed.', { suggestions: ['ask_reception'] });
 */
export class TaskError extends RobotMcpKitError {
  readonly recoverable: boolean;
  readonly suggestions: readonly string[];

  constructor(errorCode: string, message: string, options: TaskErrorOptions = {}) {
    if (typeof errorCode !== 'string' || errorCode.length === 0) {
      throw new TaskArgumentError(
        'errorCode',
        `expected a non-empty machine code such as "DOOR_CLOSED", got ${describeValue(errorCode)}`,
      );
    }
    super(errorCode, String(message));
    const { recoverable = true, suggestions = [] } = options;
    if (typeof recoverable !== 'boolean') {
      throw new TaskArgumentError('recoverable', `expected true or false, got ${describeValue(recoverable)}`);
    }
    if (!Array.isArray(suggestions) || !suggestions.every((s) => typeof s === 'string')) {
      throw new TaskArgumentError('suggestions', 'expected an array of strings such as ["ask_reception"]');
    }
    this.recoverable = recoverable;
    this.suggestions = Object.freeze([...suggestions]);
  }

  /** The failure reported in TaskInfo.failure and in the `task_failed` event. */
  toFailure(): TaskFailure {
    return TaskFailure.create({
      error_code: this.code,
      message: this.message,
      recoverable: this.recoverable,
      suggestions: this.suggestions,
    });
  }
}

/**
 * The reason a cancelled task's `ctx.signal` is aborted with; `ctx.throwIfCancelled()` and
 * `ctx.sleep()` throw it. A body that lets it propagate (or throws it itself) ends `cancelled`.
 */
export class TaskCancelledError extends RobotMcpKitError {
  readonly taskId: string | undefined;

  constructor(taskId?: string) {
    super('TASK_CANCELLED', taskId === undefined ? 'the task was cancelled' : `task ${taskId} was cancelled`);
    this.taskId = taskId;
  }
}

/** Thrown by `TaskManager.start` after `TaskManager.aclose`. */
export class TaskManagerClosedError extends RobotMcpKitError {
  constructor(serverName: string) {
    super(
      'TASK_MANAGER_CLOSED',
      `the TaskManager of server "${serverName}" is closed (aclose() was called), so it cannot start new ` +
        'tasks; create a new TaskManager, or start tasks before shutting down',
    );
  }
}

/**
 * A bad argument passed to a task API (a progress payload that is not an object, an unknown task
 * state, ...). `argument` names it; the message says what was expected.
 */
export class TaskArgumentError extends RobotMcpKitError {
  readonly argument: string;

  constructor(argument: string, message: string) {
    super('INVALID_ARGUMENT', `${argument}: ${message}`);
    this.argument = argument;
  }
}
