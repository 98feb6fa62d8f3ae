import { TaskError } from '@robot-mcp-kit/server';

/** The machine codes a ROS-backed task or tool fails with (docs/ros.md, "Faults"). */
export const ROS_ERROR_CODES = Object.freeze({
  /** rosbridge went away (or was not reachable): the goal's outcome cannot be known. */
  DISCONNECTED: 'ROS_DISCONNECTED',
  /** The action server rejected the goal. */
  GOAL_REJECTED: 'ROS_GOAL_REJECTED',
  /** The action server aborted the goal. */
  GOAL_ABORTED: 'ROS_GOAL_ABORTED',
  /** The goal was cancelled on the ROS side (not by this server). */
  GOAL_CANCELED: 'ROS_GOAL_CANCELED',
  /** rosbridge could not run the goal (no such action server, bad goal, ...). */
  GOAL_FAILED: 'ROS_GOAL_FAILED',
  /** No such service, or it did not answer in time on the ROS side. */
  SERVICE_UNAVAILABLE: 'ROS_SERVICE_UNAVAILABLE',
  /** The service answered with a failure. */
  SERVICE_FAILED: 'ROS_SERVICE_FAILED',
  /** No answer from rosbridge within the timeout. */
  SERVICE_TIMEOUT: 'ROS_SERVICE_TIMEOUT',
  /** A tool not marked `actuates: true` tried to publish. */
  PUBLISH_REFUSED: 'ROS_PUBLISH_REFUSED',
});

/** A ROS-side failure, as a task failure an LLM can act on. */
export class RosError extends TaskError {}

export function disconnectedError(what: string, url: string): RosError {
  return new RosError(
    ROS_ERROR_CODES.DISCONNECTED,
    `rosbridge at ${url} is not connected, so ${what} cannot be known or done; the server reconnects ` +
      'with backoff — check the robot and retry (get_task shows the outcome of earlier goals).',
    { recoverable: true, suggestions: ['retry_after_s:5'] },
  );
}

/** Thrown by publish when the calling tool is not marked `actuates: true`. */
export class RosPublishRefusedError extends TaskError {
  constructor(tool: string, topic: string) {
    super(
      ROS_ERROR_CODES.PUBLISH_REFUSED,
      `tool "${tool}" may not publish to ${topic}: publishing moves the robot, so only tools marked ` +
        'actuates: true may publish; mark the tool with actuates: true (read-only mode then hides it).',
      { recoverable: false },
    );
  }
}
