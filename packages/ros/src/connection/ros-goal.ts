import { type JsonObject, type TaskContext, TaskCancelledError } from '@robot-mcp-kit/server';
import { ROS_ERROR_CODES, RosError } from '../ros.error.js';

/** action_msgs/msg/GoalStatus values, as rosbridge reports them in `action_result.status`. */
export const GOAL_STATUS = Object.freeze({
  UNKNOWN: 0,
  ACCEPTED: 1,
  EXECUTING: 2,
  CANCELING: 3,
  SUCCEEDED: 4,
  CANCELED: 5,
  ABORTED: 6,
});

/** How an action's messages become the task's progress and result. */
export interface RosActionMapping<Feedback, Result> {
  /** Each feedback message → the task's progress (`eta_s`, `percent`, ...); undefined skips it. */
  readonly progress?: (feedback: Feedback) => JsonObject | undefined;
  /** The SUCCEEDED result message → the task's result (default: the message itself). */
  readonly result?: (result: Result) => JsonObject;
}

/** A goal this server sent and has no outcome for yet. */
export interface InFlightGoal {
  readonly id: string;
  readonly action: string;
  readonly taskId: string;
  /** Sends cancel_action_goal (once); the outcome still comes as the action_result. */
  requestCancel(): void;
  /** Ends the goal without an outcome (rosbridge gone). */
  fail(error: Error): void;
}

interface ActionMessage {
  readonly op?: unknown;
  readonly values?: unknown;
  readonly status?: unknown;
  readonly result?: unknown;
}

export interface GoalDeps {
  readonly action: string;
  readonly id: string;
  readonly ctx: TaskContext;
  readonly sendCancel: () => void;
  readonly onWarning: (message: string) => void;
}

/**
 * One goal's bookkeeping: feedback → progress (one report at a time, the latest wins while one is
 * being written, so memory stays one message), the result → the task's outcome.
 */
export class RosGoal<Feedback, Result> implements InFlightGoal {
  readonly id: string;
  readonly action: string;
  readonly taskId: string;
  readonly done: Promise<JsonObject>;
  private resolve!: (value: JsonObject) => void;
  private reject!: (error: Error) => void;
  private cancelSent = false;
  private settled = false;
  private pendingProgress: JsonObject | undefined;
  private pump: Promise<void> = Promise.resolve();
  private pumping = false;

  constructor(
    private readonly deps: GoalDeps,
    private readonly mapping: RosActionMapping<Feedback, Result>,
  ) {
    this.id = deps.id;
    this.action = deps.action;
    this.taskId = deps.ctx.taskId;
    this.done = new Promise<JsonObject>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  requestCancel(): void {
    if (this.cancelSent || this.settled) return;
    this.cancelSent = true;
    this.deps.sendCancel();
  }

  fail(error: Error): void {
    this.finish(() =>
      this.reject(this.deps.ctx.signal.aborted ? new TaskCancelledError(this.taskId) : error),
    );
  }

  /** Handles an action_feedback or action_result message for this goal. */
  handle(message: ActionMessage): void {
    if (this.settled) return;
    if (message.op === 'action_feedback') this.feedback(message.values as Feedback);
    else if (message.op === 'action_result') this.outcome(message);
  }

  private feedback(values: Feedback): void {
    if (!this.mapping.progress) return;
    let progress: JsonObject | undefined;
    try {
      progress = this.mapping.progress(values);
    } catch (err) {
      this.deps.onWarning(`${this.action}: the progress mapping threw on a feedback message: ${String(err)}`);
      return;
    }
    if (!progress) return;
    this.pendingProgress = progress;
    if (!this.pumping) this.pump = this.drain();
  }

  private async drain(): Promise<void> {
    this.pumping = true;
    try {
      while (this.pendingProgress && !this.settled) {
        const next = this.pendingProgress;
        this.pendingProgress = undefined;
        await this.deps.ctx.progress(next).catch((err: unknown) => {
          this.deps.onWarning(`${this.action}: progress not reported: ${String(err)}`);
        });
      }
    } finally {
      this.pumping = false;
    }
  }

  private outcome(message: ActionMessage): void {
    const status = typeof message.status === 'number' ? message.status : GOAL_STATUS.UNKNOWN;
    const values = message.values;
    if (message.result === true && status === GOAL_STATUS.SUCCEEDED) {
      const result = values && typeof values === 'object' ? (values as Result) : ({} as Result);
      // the progress already accepted is written before the result
      void this.pump.then(() =>
        this.finish(() => {
          try {
            this.resolve(this.mapping.result ? this.mapping.result(result) : (result as JsonObject));
          } catch (err) {
            this.reject(err instanceof Error ? err : new Error(String(err)));
          }
        }),
      );
      return;
    }
    this.finish(() => this.reject(this.failure(status, values)));
  }

  private failure(status: number, values: unknown): Error {
    const detail = typeof values === 'string' ? values : values === undefined ? '' : JSON.stringify(values);
    if (status === GOAL_STATUS.CANCELED) {
      if (this.cancelSent || this.deps.ctx.signal.aborted) return new TaskCancelledError(this.taskId);
      return new RosError(
        ROS_ERROR_CODES.GOAL_CANCELED,
        `the ${this.action} goal was cancelled on the robot (not by this server)`,
        { recoverable: true },
      );
    }
    if (status === GOAL_STATUS.ABORTED) {
      return new RosError(
        ROS_ERROR_CODES.GOAL_ABORTED,
        `the ${this.action} action server aborted the goal${detail ? `: ${detail}` : ''}`,
        { recoverable: true, suggestions: ['retry', 'choose_another_goal'] },
      );
    }
    if (/reject/i.test(detail)) {
      return new RosError(
        ROS_ERROR_CODES.GOAL_REJECTED,
        `the ${this.action} action server rejected the goal: ${detail}`,
        { recoverable: true, suggestions: ['choose_another_goal'] },
      );
    }
    return new RosError(
      ROS_ERROR_CODES.GOAL_FAILED,
      `rosbridge could not run the ${this.action} goal (status ${status})${detail ? `: ${detail}` : ''}`,
      { recoverable: false, suggestions: ['check_action_server'] },
    );
  }

  private finish(settle: () => void): void {
    if (this.settled) return;
    this.settled = true;
    this.pendingProgress = undefined;
    settle();
  }
}
