import { type JsonObject, type TaskContext, TaskCancelledError } from '@robot-mcp-kit/server';
import { exploreCapabilityServer } from '@robot-mcp-kit/server/advanced';
import { Backoff } from '@robot-mcp-kit/core/support';
import { Action, Ros, Service, Topic } from 'roslib';
import {
  type RosActionType,
  type RosMessageType,
  type RosServiceType,
} from '../messages/ros-interface.types.js';
import { disconnectedError, ROS_ERROR_CODES, RosError, RosPublishRefusedError } from '../ros.error.js';
import {
  type ResolvedRosConnectionOptions,
  type RosConnectionOptions,
  resolveRosConnectionOptions,
} from './ros-connection.options.js';
import { type InFlightGoal, type RosActionMapping, RosGoal } from './ros-goal.js';
import { LatestRateLimiter } from './rate-limiter.js';

/** Options of {@link RoslibRosConnection.subscribe}. */
export interface RosSubscribeOptions {
  /** At most one message per this many ms reaches the handler (the latest; default 200). */
  readonly minIntervalMs?: number;
}

/** Who publishes: a task context, or `{ tool }` naming a `@Tool` of the server. */
export interface RosPublisherIdentity {
  readonly tool: string;
}

/**
 * The kit's side of rosbridge, on the official `roslib` client: actions as task bodies, services
 * with a timeout, rate-limited topic subscriptions, gated publishing, and a connection that
 * reconnects with backoff. Goals in flight when rosbridge goes away end with `ROS_DISCONNECTED`.
 */
export class RoslibRosConnection {
  private readonly ros: Ros;
  private readonly options: ResolvedRosConnectionOptions;
  private readonly goals = new Map<string, InFlightGoal>();
  private readonly publishers = new Map<string, Topic<object>>();
  private readonly onDrop = new Set<() => void>();
  private readonly waiters = new Set<() => void>();
  private readonly actuating: ReadonlySet<string> | undefined;
  private readonly backoff: Backoff;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private everConnected = false;

  constructor(options: RosConnectionOptions) {
    this.options = resolveRosConnectionOptions(options);
    this.backoff = new Backoff(this.options.reconnectInitialMs, this.options.reconnectMaxMs);
    this.actuating = options.server
      ? new Set(
          exploreCapabilityServer(options.server)
            .tools.filter((t) => t.actuates)
            .map((t) => t.name),
        )
      : undefined;
    this.ros = new Ros({});
    this.ros.on('connection', () => this.connected());
    this.ros.on('close', () => this.dropped());
    // errors come before 'close'; the reconnect loop handles them
    this.ros.on('error', () => undefined);
    this.dial();
  }

  get url(): string {
    return this.options.url;
  }

  get isConnected(): boolean {
    return this.ros.isConnected;
  }

  /** Goals this server sent that have no outcome yet. */
  inFlightGoals(): readonly InFlightGoal[] {
    return [...this.goals.values()];
  }

  /** Resolves once connected; rejects with `ROS_DISCONNECTED` after `timeoutMs`. */
  whenConnected(timeoutMs = 10_000): Promise<void> {
    if (this.isConnected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        reject(disconnectedError('the connection', this.url));
      }, timeoutMs);
      this.waiters.add(done);
    });
  }

  /**
   * Sends a goal and runs it as the task's body: feedback → `ctx.progress` through the mapping,
   * SUCCEEDED → the result, ABORTED → `ROS_GOAL_ABORTED`, rejected → `ROS_GOAL_REJECTED`; a cancel
   * of the task sends cancel_action_goal and the body ends when the server confirms CANCELED.
   */
  async runAction<G extends object, F extends object, R extends object>(
    action: string,
    type: RosActionType<G, F, R>,
    goal: G,
    ctx: TaskContext,
    mapping: RosActionMapping<F, R> = {},
  ): Promise<JsonObject> {
    ctx.throwIfCancelled();
    if (!this.isConnected) throw disconnectedError(`a ${action} goal`, this.url);
    const client = new Action<G, F, R>({ ros: this.ros, name: action, actionType: type.type });
    const noop = (): void => undefined;
    const id = client.sendGoal(goal, noop, undefined, noop);
    if (id === undefined)
      throw new RosError(ROS_ERROR_CODES.GOAL_FAILED, `roslib did not send the ${action} goal`);
    const rosGoal = new RosGoal<F, R>(
      {
        action,
        id,
        ctx,
        sendCancel: () => {
          if (this.isConnected) client.cancelGoal(id);
        },
        onWarning: (m) => this.options.logger.warn(m, { task_id: ctx.taskId }),
      },
      mapping,
    );
    const listener = (message: unknown): void => rosGoal.handle(message as object);
    this.ros.on(id, listener);
    this.goals.set(id, rosGoal);
    const onAbort = (): void => {
      if (this.isConnected) rosGoal.requestCancel();
      else rosGoal.fail(new TaskCancelledError(ctx.taskId));
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await rosGoal.done;
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      this.goals.delete(id);
      // roslib's own listener for the goal id goes too (it keeps one per goal otherwise)
      this.ros.removeAllListeners(id);
    }
  }

  /** Calls a service; `ROS_SERVICE_UNAVAILABLE` when it does not exist, `ROS_SERVICE_TIMEOUT` after the timeout. */
  callService<Req extends object, Res extends object>(
    service: string,
    type: RosServiceType<Req, Res>,
    request: Req,
    options: { timeoutMs?: number } = {},
  ): Promise<Res> {
    if (!this.isConnected) return Promise.reject(disconnectedError(`a ${service} call`, this.url));
    const timeoutMs = options.timeoutMs ?? this.options.serviceTimeoutMs;
    const client = new Service<Req, Res>({ ros: this.ros, name: service, serviceType: type.type });
    return new Promise<Res>((resolve, reject) => {
      const settle = (fn: () => void): void => {
        clearTimeout(timer);
        this.onDrop.delete(drop);
        fn();
      };
      const drop = (): void => settle(() => reject(disconnectedError(`the answer of ${service}`, this.url)));
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(
              new RosError(
                ROS_ERROR_CODES.SERVICE_TIMEOUT,
                `${service} did not answer within ${timeoutMs} ms; is the robot busy or the service absent?`,
                { recoverable: true, suggestions: ['retry'] },
              ),
            ),
          ),
        timeoutMs,
      );
      this.onDrop.add(drop);
      client.callService(
        request,
        (values) => settle(() => resolve(values)),
        (error) => settle(() => reject(serviceFailure(service, error))),
        timeoutMs / 1000,
      );
    });
  }

  /** Subscribes to a topic, rate-limited; re-subscribes after a reconnect. Returns the unsubscribe. */
  subscribe<M extends object>(
    topic: string,
    type: RosMessageType<M>,
    handler: (message: M) => void,
    options: RosSubscribeOptions = {},
  ): () => void {
    const minIntervalMs = options.minIntervalMs ?? 200;
    const limiter = new LatestRateLimiter<M>(minIntervalMs, handler);
    const client = new Topic<M>({
      ros: this.ros,
      name: topic,
      messageType: type.type,
      throttle_rate: Math.round(minIntervalMs),
    });
    const listener = (message: M): void => limiter.push(message);
    client.subscribe(listener);
    return () => {
      limiter.stop();
      client.unsubscribe(listener);
    };
  }

  /**
   * Publishes a message. Only tools marked `actuates: true` of the `server` class may publish;
   * a publish while rosbridge is away is refused (it is not queued to move the robot later).
   */
  publish<M extends object>(
    from: RosPublisherIdentity,
    topic: string,
    type: RosMessageType<M>,
    message: M,
  ): void {
    if (!this.actuating?.has(from.tool)) throw new RosPublishRefusedError(from.tool, topic);
    this.publishUnchecked(topic, type, message);
  }

  /** @internal the e-stop's publish: allowed from any tool, also under read-only mode. */
  publishUnchecked<M extends object>(topic: string, type: RosMessageType<M>, message: M): void {
    if (!this.isConnected) throw disconnectedError(`a message on ${topic}`, this.url);
    let publisher = this.publishers.get(topic);
    if (!publisher) {
      publisher = new Topic<object>({ ros: this.ros, name: topic, messageType: type.type });
      this.publishers.set(topic, publisher);
    }
    publisher.publish(message);
  }

  /** Stops reconnecting and closes; goals in flight end with `ROS_DISCONNECTED`. */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.failInFlight();
    this.ros.close();
  }

  private dial(): void {
    if (this.closed) return;
    this.ros.connect(this.options.url).catch((err: unknown) => {
      this.options.logger.warn(`rosbridge: cannot connect to ${this.url}: ${String(err)}`);
      this.scheduleReconnect();
    });
  }

  private connected(): void {
    this.backoff.reset();
    this.options.logger.info(`rosbridge: connected to ${this.url}${this.everConnected ? ' again' : ''}`);
    this.everConnected = true;
    for (const waiter of [...this.waiters]) waiter();
  }

  private dropped(): void {
    this.failInFlight();
    if (this.closed) return;
    this.options.logger.warn(
      `rosbridge: connection to ${this.url} lost; reconnecting in ${this.backoff.currentMs} ms`,
    );
    this.scheduleReconnect();
  }

  private failInFlight(): void {
    for (const goal of [...this.goals.values()])
      goal.fail(disconnectedError(`the outcome of the ${goal.action} goal`, this.url));
    for (const drop of [...this.onDrop]) drop();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    const delay = this.backoff.next();
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.dial();
    }, delay);
  }
}

function serviceFailure(service: string, error: unknown): RosError {
  const detail = typeof error === 'string' ? error : JSON.stringify(error);
  if (/does not exist|not available|unknown service/i.test(detail)) {
    return new RosError(
      ROS_ERROR_CODES.SERVICE_UNAVAILABLE,
      `${service} is not offered by the robot (${detail}); check the service name and that its node runs`,
      { recoverable: true, suggestions: ['check_service_name'] },
    );
  }
  return new RosError(ROS_ERROR_CODES.SERVICE_FAILED, `${service} failed: ${detail}`, { recoverable: true });
}
