import { type TaskControl } from '@robot-mcp-kit/core/host';
import { type RosMessageType } from '../messages/ros-interface.types.js';
import { type RoslibRosConnection } from '../connection/roslib-ros.connection.js';

/** The author's stop message, e.g. a zero Twist on `/cmd_vel`. */
export interface RosStopMessage<M extends object> {
  readonly topic: string;
  readonly type: RosMessageType<M>;
  readonly message: M;
}

/** What {@link rosEmergencyStop} did. */
export interface RosEmergencyStopReport {
  /** Whether the stop message went out (false when rosbridge is away). */
  readonly stop_published: boolean;
  /** The goals this server had in flight; cancel_action_goal was sent for each. */
  readonly cancelled_goals: { goal_id: string; action: string; task_id: string }[];
  /** The tasks cancelled; `still_moving` until the action server confirms CANCELED. */
  readonly stopped_tasks: { task_id: string; tool: string; still_moving: boolean }[];
  readonly connected: boolean;
  [key: string]: unknown;
}

/**
 * The e-stop: publishes the stop message first (the fastest way to stop the motors), sends
 * cancel_action_goal for every goal this server sent, and cancels every running task. Call it from
 * a `@Tool` annotated `destructiveHint: false` so that read-only mode still offers it.
 */
export async function rosEmergencyStop<M extends object>(
  connection: RoslibRosConnection,
  tasks: TaskControl,
  stop?: RosStopMessage<M>,
): Promise<RosEmergencyStopReport> {
  let stopPublished = false;
  if (stop && connection.isConnected) {
    connection.publishUnchecked(stop.topic, stop.type, stop.message);
    stopPublished = true;
  }
  const goals = connection.inFlightGoals();
  for (const goal of goals) goal.requestCancel();
  const cancelled = await tasks.cancelAll();
  return {
    stop_published: stopPublished,
    connected: connection.isConnected,
    cancelled_goals: goals.map((g) => ({ goal_id: g.id, action: g.action, task_id: g.taskId })),
    stopped_tasks: cancelled.map((t) => ({
      task_id: t.task_id,
      tool: t.tool,
      still_moving: t.body_running === true,
    })),
  };
}
