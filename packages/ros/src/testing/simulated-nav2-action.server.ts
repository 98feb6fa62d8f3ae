import { type WebSocket } from 'ws';
import { type NavigateToPoseGoal } from '../messages/common.messages.js';
import { type RosbridgeFaults, type RosbridgeMessage } from './rosbridge-double.types.js';
import { type DrivingGoal, type SimulatedNav2Robot } from './simulated-nav2-robot.js';

/** action_msgs/GoalStatus values. */
const STATUS = { UNKNOWN: 0, SUCCEEDED: 4, CANCELED: 5, ABORTED: 6 } as const;

interface ActiveGoal extends DrivingGoal {
  readonly socket: WebSocket;
  readonly action: string;
  feedbacks: number;
  cancelling: boolean;
}

/** What the action server needs from the double it runs in. */
export interface Nav2ActionHost {
  readonly robot: SimulatedNav2Robot;
  readonly faults: RosbridgeFaults;
  send(socket: WebSocket, message: Record<string, unknown>): void;
  dropConnections(): void;
}

/** The double's `/navigate_to_pose` action server (nav2_msgs/action/NavigateToPose). */
export class SimulatedNav2ActionServer {
  private readonly goals = new Map<string, ActiveGoal>();

  constructor(private readonly host: Nav2ActionHost) {}

  private get robot(): SimulatedNav2Robot {
    return this.host.robot;
  }

  /** Goals being driven now. */
  get active(): number {
    return this.goals.size;
  }

  /** send_action_goal: drives the robot, or answers a failed action_result as rosbridge does. */
  sendGoal(socket: WebSocket, message: RosbridgeMessage): void {
    const action = String(message.action);
    const id = String(message.id);
    const fail = (values: string): void =>
      this.host.send(socket, {
        op: 'action_result',
        id,
        action,
        values,
        status: STATUS.UNKNOWN,
        result: false,
      });
    if (action !== '/navigate_to_pose' || message.action_type !== 'nav2_msgs/action/NavigateToPose') {
      fail(`Action server ${action} of type ${String(message.action_type)} is not available`);
      return;
    }
    const target = this.robot.target(message.args as NavigateToPoseGoal);
    if (!target) return fail('Goal is missing pose.pose.position.{x,y}');
    if (this.host.faults.rejectGoals) return fail('Action goal was rejected');
    const goal: ActiveGoal = {
      id,
      action,
      socket,
      target,
      startedAt: Date.now(),
      timer: undefined,
      feedbacks: 0,
      cancelling: false,
    };
    this.goals.set(id, goal);
    this.tick(goal);
  }

  private tick(goal: ActiveGoal): void {
    goal.timer = setTimeout(() => {
      if (!this.goals.has(goal.id) || goal.cancelling) return;
      const arrived = this.robot.step(goal.target);
      if (arrived) return this.finish(goal, STATUS.SUCCEEDED, { error_code: 0, error_msg: '' });
      goal.feedbacks += 1;
      this.host.send(goal.socket, {
        op: 'action_feedback',
        id: goal.id,
        action: goal.action,
        values: this.robot.feedback(goal, Date.now()),
      });
      if (
        this.host.faults.abortAfterFeedbacks !== undefined &&
        goal.feedbacks >= this.host.faults.abortAfterFeedbacks
      ) {
        return this.finish(goal, STATUS.ABORTED, { error_code: 104, error_msg: 'No valid path to the goal' });
      }
      if (
        this.host.faults.dropAfterFeedbacks !== undefined &&
        goal.feedbacks >= this.host.faults.dropAfterFeedbacks
      ) {
        this.goals.delete(goal.id);
        return this.host.dropConnections();
      }
      this.tick(goal);
    }, this.robot.feedbackIntervalMs);
  }

  /** cancel_action_goal: the goal ends CANCELED after `faults.cancelDelayMs`. */
  cancel(message: RosbridgeMessage): void {
    const goal = this.goals.get(String(message.id));
    if (!goal || goal.cancelling) return;
    goal.cancelling = true;
    clearTimeout(goal.timer);
    goal.timer = setTimeout(() => this.finish(goal, STATUS.CANCELED, {}), this.host.faults.cancelDelayMs);
  }

  private finish(goal: ActiveGoal, status: number, values: unknown): void {
    clearTimeout(goal.timer);
    this.goals.delete(goal.id);
    this.host.send(goal.socket, {
      op: 'action_result',
      id: goal.id,
      action: goal.action,
      values,
      status,
      result: true,
    });
  }

  /** Forgets the goals of a closed socket (or all of them). */
  forget(socket?: WebSocket): void {
    for (const goal of [...this.goals.values()]) {
      if (socket && goal.socket !== socket) continue;
      clearTimeout(goal.timer);
      this.goals.delete(goal.id);
    }
  }
}
