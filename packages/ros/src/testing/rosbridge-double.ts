import { type AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { type DrivingGoal, SimulatedNav2Robot, type SimulatedRobotOptions } from './simulated-nav2-robot.js';
import { type NavigateToPoseGoal } from '../messages/common.messages.js';

/** The ops rosbridge v2 accepts from a client (ROSBRIDGE_PROTOCOL.md §3), as the double answers them. */
export const ROSBRIDGE_CLIENT_OPS = Object.freeze([
  'set_level',
  'advertise',
  'unadvertise',
  'publish',
  'subscribe',
  'unsubscribe',
  'call_service',
  'send_action_goal',
  'cancel_action_goal',
] as const);

/** action_msgs/GoalStatus values. */
const STATUS = { UNKNOWN: 0, SUCCEEDED: 4, CANCELED: 5, ABORTED: 6 } as const;

/** The fault switches; each can be flipped while the double runs. */
export interface RosbridgeFaults {
  /** Reject every goal (rosbridge: `action_result` with `result: false`, status UNKNOWN). */
  rejectGoals: boolean;
  /** Abort a goal after this many feedback messages (status ABORTED). */
  abortAfterFeedbacks: number | undefined;
  /** Close every client socket after this many feedback messages of a goal (drop mid-goal). */
  dropAfterFeedbacks: number | undefined;
  /** Wait this long before confirming a cancel with CANCELED (the robot still brakes). */
  cancelDelayMs: number;
  /** Leave `/dock` unadvertised: calls get "Service /dock does not exist". */
  dockMissing: boolean;
}

export interface RosbridgeDoubleOptions extends SimulatedRobotOptions {
  /** Port to listen on, 127.0.0.1 (default 0: any free port). */
  readonly port?: number;
  /** `/battery_state` every this many ms (default 200). */
  readonly batteryIntervalMs?: number;
}

/** A rosbridge protocol message as received (JSON). */
export type RosbridgeMessage = Record<string, unknown> & { op?: unknown; id?: unknown };
interface Subscription {
  readonly socket: WebSocket;
  readonly id: unknown;
}
interface ActiveGoal extends DrivingGoal {
  readonly socket: WebSocket;
  readonly action: string;
  feedbacks: number;
  cancelling: boolean;
}

const MAX_LOG = 2000;

/**
 * A rosbridge v2 server for tests, on `ws`, written from the protocol text: a Nav2-style
 * `/navigate_to_pose` action server that drives a simulated robot with feedback, a
 * `/battery_state` topic, a `/dock` service (std_srvs/Trigger), and fault switches. The official
 * `roslib` client talks to it as to rosbridge.
 */
export class RosbridgeDouble {
  readonly robot: SimulatedNav2Robot;
  readonly faults: RosbridgeFaults = {
    rejectGoals: false,
    abortAfterFeedbacks: undefined,
    dropAfterFeedbacks: undefined,
    cancelDelayMs: 0,
    dockMissing: false,
  };
  /** Every message received from clients (the last 2000). */
  readonly received: RosbridgeMessage[] = [];
  /** Every message published by clients, per topic (the last 2000). */
  readonly published = new Map<string, unknown[]>();
  /** Called with every message just before it is sent (instrumentation for tests and the bench). */
  onSend: ((message: Readonly<Record<string, unknown>>) => void) | undefined = undefined;
  /** How many messages the double sent to subscribers, per topic. */
  readonly delivered = new Map<string, number>();
  private server: WebSocketServer | undefined;
  private readonly subscriptions = new Map<string, Subscription[]>();
  private readonly goals = new Map<string, ActiveGoal>();
  private batteryTimer: NodeJS.Timeout | undefined;
  private portNumber: number;
  private readonly batteryIntervalMs: number;

  constructor(private readonly options: RosbridgeDoubleOptions = {}) {
    this.robot = new SimulatedNav2Robot(options);
    this.portNumber = options.port ?? 0;
    this.batteryIntervalMs = options.batteryIntervalMs ?? 200;
  }

  get port(): number {
    return this.portNumber;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.portNumber}`;
  }

  /** Goals being driven now. */
  get activeGoals(): number {
    return this.goals.size;
  }

  /** Number of client sockets open now. */
  get clients(): number {
    return this.server?.clients.size ?? 0;
  }

  async start(): Promise<this> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: this.portNumber });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    this.portNumber = (server.address() as AddressInfo).port;
    server.on('connection', (socket) => {
      socket.on('message', (data) => this.receive(socket, String(data)));
      socket.on('close', () => this.forget(socket));
    });
    this.server = server;
    this.batteryTimer = setInterval(() => this.publishBattery(), this.batteryIntervalMs);
    return this;
  }

  /** Closes every client socket without a word (the network dropped); the server keeps listening. */
  dropConnections(): void {
    for (const socket of this.server?.clients ?? []) socket.terminate();
  }

  /** Stops listening (rosbridge down) and forgets every goal and subscription. */
  async stop(): Promise<void> {
    clearInterval(this.batteryTimer);
    this.batteryTimer = undefined;
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of server.clients) socket.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const goal of this.goals.values()) clearTimeout(goal.timer);
    this.goals.clear();
    this.subscriptions.clear();
  }

  /** rosbridge restarts: down, then up again on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Publishes a message to the clients subscribed to `topic`. */
  publishToClients(topic: string, msg: unknown): void {
    for (const sub of this.subscriptions.get(topic) ?? []) {
      this.delivered.set(topic, (this.delivered.get(topic) ?? 0) + 1);
      this.send(sub.socket, { op: 'publish', topic, msg });
    }
  }

  private receive(socket: WebSocket, text: string): void {
    let message: RosbridgeMessage;
    try {
      message = JSON.parse(text) as RosbridgeMessage;
    } catch {
      this.status(socket, 'error', `Unable to load the message as JSON: ${text.slice(0, 200)}`);
      return;
    }
    this.received.push(message);
    if (this.received.length > MAX_LOG) this.received.shift();
    const op = message.op;
    if (typeof op !== 'string') {
      this.status(
        socket,
        'error',
        `Received a message without an op. All messages require 'op' field with value one of: ${JSON.stringify(ROSBRIDGE_CLIENT_OPS)}`,
        message.id,
      );
      return;
    }
    switch (op) {
      case 'subscribe':
        return this.subscribe(socket, message);
      case 'unsubscribe':
        return this.unsubscribe(socket, message);
      case 'publish':
        return this.recordPublish(message);
      case 'call_service':
        return this.callService(socket, message);
      case 'send_action_goal':
        return this.sendActionGoal(socket, message);
      case 'cancel_action_goal':
        return this.cancelActionGoal(message);
      case 'advertise':
      case 'unadvertise':
      case 'set_level':
        return;
      default:
        this.status(
          socket,
          'error',
          `Unknown operation: ${op}.  Allowed operations: ${JSON.stringify(ROSBRIDGE_CLIENT_OPS)}`,
          message.id,
        );
    }
  }

  private subscribe(socket: WebSocket, message: RosbridgeMessage): void {
    const topic = String(message.topic);
    const list = this.subscriptions.get(topic) ?? [];
    list.push({ socket, id: message.id });
    this.subscriptions.set(topic, list);
  }

  private unsubscribe(socket: WebSocket, message: RosbridgeMessage): void {
    const topic = String(message.topic);
    const list = (this.subscriptions.get(topic) ?? []).filter(
      (s) => s.socket !== socket || (message.id !== undefined && s.id !== message.id),
    );
    this.subscriptions.set(topic, list);
  }

  private recordPublish(message: RosbridgeMessage): void {
    const topic = String(message.topic);
    const list = this.published.get(topic) ?? [];
    list.push(message.msg);
    if (list.length > MAX_LOG) list.shift();
    this.published.set(topic, list);
    this.publishToClients(topic, message.msg);
  }

  private callService(socket: WebSocket, message: RosbridgeMessage): void {
    const service = String(message.service);
    const reply = (result: boolean, values: unknown): void =>
      this.send(socket, { op: 'service_response', id: message.id, service, values, result });
    if (service !== '/dock' || this.faults.dockMissing) {
      reply(false, `Service ${service} does not exist`);
      return;
    }
    this.robot.docked = true;
    reply(true, { success: true, message: 'docked' });
  }

  private sendActionGoal(socket: WebSocket, message: RosbridgeMessage): void {
    const action = String(message.action);
    const id = String(message.id);
    const fail = (values: string): void =>
      this.send(socket, { op: 'action_result', id, action, values, status: STATUS.UNKNOWN, result: false });
    if (action !== '/navigate_to_pose' || message.action_type !== 'nav2_msgs/action/NavigateToPose') {
      fail(`Action server ${action} of type ${String(message.action_type)} is not available`);
      return;
    }
    const target = this.robot.target(message.args as NavigateToPoseGoal);
    if (!target) return fail('Goal is missing pose.pose.position.{x,y}');
    if (this.faults.rejectGoals) return fail('Action goal was rejected');
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
      this.send(goal.socket, {
        op: 'action_feedback',
        id: goal.id,
        action: goal.action,
        values: this.robot.feedback(goal, Date.now()),
      });
      if (
        this.faults.abortAfterFeedbacks !== undefined &&
        goal.feedbacks >= this.faults.abortAfterFeedbacks
      ) {
        return this.finish(goal, STATUS.ABORTED, { error_code: 104, error_msg: 'No valid path to the goal' });
      }
      if (this.faults.dropAfterFeedbacks !== undefined && goal.feedbacks >= this.faults.dropAfterFeedbacks) {
        this.goals.delete(goal.id);
        return this.dropConnections();
      }
      this.tick(goal);
    }, this.robot.feedbackIntervalMs);
  }

  private cancelActionGoal(message: RosbridgeMessage): void {
    const goal = this.goals.get(String(message.id));
    if (!goal || goal.cancelling) return;
    goal.cancelling = true;
    clearTimeout(goal.timer);
    goal.timer = setTimeout(() => this.finish(goal, STATUS.CANCELED, {}), this.faults.cancelDelayMs);
  }

  private finish(goal: ActiveGoal, status: number, values: unknown): void {
    clearTimeout(goal.timer);
    this.goals.delete(goal.id);
    this.send(goal.socket, {
      op: 'action_result',
      id: goal.id,
      action: goal.action,
      values,
      status,
      result: true,
    });
  }

  private publishBattery(): void {
    this.publishToClients('/battery_state', {
      header: { frame_id: 'base_link' },
      voltage: 24 * (0.8 + 0.2 * this.robot.battery),
      percentage: this.robot.battery,
      power_supply_status: this.robot.docked ? 1 : 2,
      present: true,
    });
  }

  private forget(socket: WebSocket): void {
    for (const [topic, list] of this.subscriptions) {
      this.subscriptions.set(
        topic,
        list.filter((s) => s.socket !== socket),
      );
    }
    for (const goal of [...this.goals.values()]) {
      if (goal.socket !== socket) continue;
      clearTimeout(goal.timer);
      this.goals.delete(goal.id);
    }
  }

  private status(socket: WebSocket, level: string, msg: string, id?: unknown): void {
    this.send(socket, id === undefined ? { op: 'status', level, msg } : { op: 'status', level, msg, id });
  }

  private send(socket: WebSocket, message: Record<string, unknown>): void {
    if (socket.readyState !== socket.OPEN) return;
    this.onSend?.(message);
    socket.send(JSON.stringify(message));
  }
}

/** Starts a double; `await double.stop()` in the test's clean-up. */
export async function startRosbridgeDouble(options: RosbridgeDoubleOptions = {}): Promise<RosbridgeDouble> {
  return new RosbridgeDouble(options).start();
}
