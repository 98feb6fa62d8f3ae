import { type AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { SimulatedNav2ActionServer } from './simulated-nav2-action.server.js';
import { SimulatedNav2Robot, type SimulatedRobotOptions } from './simulated-nav2-robot.js';
import {
  ROSBRIDGE_CLIENT_OPS,
  type RosbridgeFaults,
  type RosbridgeMessage,
} from './rosbridge-double.types.js';

export { ROSBRIDGE_CLIENT_OPS };
export type { RosbridgeFaults, RosbridgeMessage };

export interface RosbridgeDoubleOptions extends SimulatedRobotOptions {
  /** Port to listen on, 127.0.0.1 (default 0: any free port). */
  readonly port?: number;
  /** `/battery_state` every this many ms (default 200). */
  readonly batteryIntervalMs?: number;
}

interface Subscription {
  readonly socket: WebSocket;
  readonly id: unknown;
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
  private readonly actions = new SimulatedNav2ActionServer(this);
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
    return this.actions.active;
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
    this.actions.forget();
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
        return this.actions.sendGoal(socket, message);
      case 'cancel_action_goal':
        return this.actions.cancel(message);
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
    this.actions.forget(socket);
  }

  private status(socket: WebSocket, level: string, msg: string, id?: unknown): void {
    this.send(socket, id === undefined ? { op: 'status', level, msg } : { op: 'status', level, msg, id });
  }

  /** @internal sends one message to one client (the action server's port). */
  send(socket: WebSocket, message: Record<string, unknown>): void {
    if (socket.readyState !== socket.OPEN) return;
    this.onSend?.(message);
    socket.send(JSON.stringify(message));
  }
}

/** Starts a double; `await double.stop()` in the test's clean-up. */
export async function startRosbridgeDouble(options: RosbridgeDoubleOptions = {}): Promise<RosbridgeDouble> {
  return new RosbridgeDouble(options).start();
}
