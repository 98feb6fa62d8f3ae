import { type Clock, type TimerHandle, systemClock } from '../clock/clock.port.js';
import { type Logger, type LogMeta, silentLogger } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { Fifo, type QueuedEvent, WaitingEvents, laneOf } from './event-queue.js';
import { createEventTransportFromEnv } from './event-transport.factory.js';
import {
  type DeliveryOutcome,
  type EventSink,
  type EventTransport,
  type FlushReport,
  type PosterStats,
} from './event.types.js';
import { type DropReason, dropLine, errorText, idsOf } from './delivery-log.js';
import { FlushWaiters } from './flush-waiters.js';
import {
  type EventPosterEnvOptions,
  type EventPosterOptions,
  retryDelay,
  validatePosterOptions,
} from './poster-options.js';

export type { EventPosterEnvOptions, EventPosterOptions } from './poster-options.js';

interface Lane {
  readonly index: number;
  /** The event being sent or waiting for its next retry. */
  head: QueuedEvent | undefined;
  timer: TimerHandle | undefined;
  kickPending: boolean;
}

/**
 * The event sink of a server (spec §3.1, §4.3): accepts events without blocking and delivers
 * them through an {@link EventTransport}, at least once, in `seq` order per task, with retries
 * (0.5 s, 2 s, 8 s, then every 30 s, up to 10 minutes per event) and a bounded queue.
 *
 * Events are spread over `lanes` by task id; each lane sends one event at a time, so a task
 * whose events keep failing delays only the tasks that share its lane. At most `maxInFlight`
 * sends run at once; a lane waiting for a retry holds no send slot.
 */
export class EventPoster implements EventSink {
  readonly serverName: string;
  private readonly transport: EventTransport;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly maxQueue: number;
  private readonly schedule: { retryDelaysMs: readonly number[]; retryEveryMs: number };
  private readonly maxRetryMs: number;
  private readonly lanes: Lane[];
  private readonly maxInFlight: number;
  /** Attempts waiting for a send slot, in the order they became ready. */
  private readonly slotWaiters = new Fifo<() => void>();
  private inFlight = 0;
  private readonly waiting: WaitingEvents;
  private readonly listeners = new Set<(event: TaskEvent) => void>();
  private readonly flushWaiters: FlushWaiters;
  private readonly counters = { accepted: 0, delivered: 0, retried: 0, dropped: 0 };
  private depth = 0;
  private order = 0;
  private closing = false;
  private stopped = false;
  private closePromise: Promise<FlushReport> | undefined;

  constructor(options: EventPosterOptions) {
    const valid = validatePosterOptions(options);
    this.serverName = valid.serverName;
    this.transport = valid.transport;
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ server: valid.serverName });
    this.maxQueue = valid.maxQueue;
    this.schedule = { retryDelaysMs: valid.retryDelaysMs, retryEveryMs: valid.retryEveryMs };
    this.maxRetryMs = valid.maxRetryMs;
    this.lanes = Array.from({ length: valid.lanes }, (_, index) => ({
      index,
      head: undefined,
      timer: undefined,
      kickPending: false,
    }));
    this.maxInFlight = valid.maxInFlight;
    this.waiting = new WaitingEvents(valid.lanes);
    this.flushWaiters = new FlushWaiters(this.clock);
  }

  /**
   * A poster configured from `RVC_CALLBACK_URL` / `RVC_EVENT_SECRET` (spec §3.4): HTTP when the
   * URL is set, a no-op (debug log) when it is not.
   * @throws ConfigError when the URL is malformed or the secret is missing.
   */
  static fromEnv(serverName: string, options: EventPosterEnvOptions = {}): EventPoster {
    const { env, timeoutMs, ...rest } = options;
    const transport = createEventTransportFromEnv(serverName, {
      env,
      timeoutMs,
      logger: options.logger,
      clock: options.clock,
      retryCapMs: options.maxRetryMs,
    });
    return new EventPoster({ ...rest, serverName, transport });
  }

  /** Opens the transport when it needs it (brokers connect); @throws ConfigError with the fix. */
  async open(): Promise<void> {
    await this.transport.open?.();
  }

  /** The transport's description (`noop` or the URL), for logs. */
  get target(): string {
    return this.transport.description;
  }

  get stats(): PosterStats {
    return { ...this.counters, queueDepth: this.depth };
  }

  /** Enqueues `event` for delivery. Never throws, never waits. */
  post(event: TaskEvent): void {
    try {
      this.accept(event);
    } catch (err) {
      this.log('error', 'event poster failed to accept an event', { ...idsOf(event), error: errorText(err) });
    }
  }

  /** Calls `listener` synchronously with every accepted event. Returns the unsubscribe function. */
  subscribe(listener: (event: TaskEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Resolves `true` once every event accepted so far has been delivered or dropped, `false` when
   * `timeoutMs` (on the poster's clock) passes first. Without a timeout it may wait forever.
   */
  flush(timeoutMs?: number): Promise<boolean> {
    if (this.depth === 0) return Promise.resolve(true);
    if (timeoutMs !== undefined && timeoutMs <= 0) return Promise.resolve(false);
    return this.flushWaiters.wait(this.order, this.depth, timeoutMs);
  }

  /**
   * Stops intake, keeps delivering (retries included) until the queue is empty or `timeoutMs`
   * passes on the clock, abandons what is left (one error log), then closes the transport.
   * Idempotent: later calls return the same report.
   */
  aclose(options: { timeoutMs?: number } = {}): Promise<FlushReport> {
    this.closePromise ??= this.close(options.timeoutMs ?? 10_000);
    return this.closePromise;
  }

  private async close(timeoutMs: number): Promise<FlushReport> {
    this.closing = true;
    const flushed = await this.flush(Math.max(0, timeoutMs));
    let unflushed = 0;
    if (!flushed) unflushed = this.abandonAll();
    this.stopped = true;
    for (const lane of this.lanes) this.clearLaneTimer(lane);
    this.slotWaiters.drain();
    this.flushWaiters.resolveAll(unflushed === 0);
    if (unflushed > 0) {
      this.log('error', `could not flush ${unflushed} events`, {
        unflushed,
        delivered: this.counters.delivered,
        dropped: this.counters.dropped,
        timeout_ms: timeoutMs,
        target: this.transport.description,
      });
    }
    try {
      await this.transport.close?.();
    } catch (err) {
      this.log('warn', 'event transport failed to close', { error: errorText(err) });
    }
    return { delivered: this.counters.delivered, dropped: this.counters.dropped, unflushed };
  }

  private accept(event: TaskEvent): void {
    if (this.closing) {
      this.counters.dropped += 1;
      this.log('warn', 'event posted after the poster was closed; dropped', {
        ...idsOf(event),
        reason: 'closed',
      });
      return;
    }
    let body: string;
    try {
      body = JSON.stringify(event);
    } catch (err) {
      this.counters.dropped += 1;
      this.log('error', 'event cannot be serialized to JSON; dropped', {
        ...idsOf(event),
        reason: 'unserializable',
        error: errorText(err),
      });
      return;
    }
    const now = this.clock.now();
    const lane = laneOf(String(event.task_id), this.lanes.length);
    this.order += 1;
    const entry: QueuedEvent = {
      event,
      body,
      postedAt: now,
      deadline: now + this.maxRetryMs,
      lane,
      order: this.order,
      state: 'waiting',
      attempts: 0,
    };
    this.counters.accepted += 1;
    this.notify(event);
    if (this.depth >= this.maxQueue) {
      const victim = this.waiting.victimFor(event.type);
      if (!victim) {
        this.countDrop(entry, 'queue_full');
        return;
      }
      this.drop(victim, 'queue_full');
    }
    this.waiting.add(entry);
    this.depth += 1;
    this.kick(this.laneAt(lane));
  }

  private notify(event: TaskEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log('error', 'event listener threw', { ...idsOf(event), error: errorText(err) });
      }
    }
  }

  /** Starts the lane on a microtask if it is idle, so `post()` never runs a send itself. */
  private kick(lane: Lane): void {
    if (lane.head || lane.kickPending || this.stopped) return;
    lane.kickPending = true;
    queueMicrotask(() => {
      lane.kickPending = false;
      this.next(lane);
    });
  }

  private next(lane: Lane): void {
    if (lane.head || this.stopped) return;
    for (;;) {
      const entry = this.waiting.takeNext(lane.index);
      if (!entry) return;
      if (this.clock.now() > entry.deadline) {
        entry.lastError ??= 'not attempted: the queue was behind';
        this.drop(entry, 'retry_cap');
        continue;
      }
      entry.state = 'inflight';
      lane.head = entry;
      this.attempt(lane, entry);
      return;
    }
  }

  private attempt(lane: Lane, entry: QueuedEvent): void {
    if (entry.state !== 'inflight' || this.stopped) return; // abandoned while it waited for a slot
    if (this.inFlight >= this.maxInFlight) {
      this.slotWaiters.push(() => this.attempt(lane, entry));
      return;
    }
    this.inFlight += 1;
    entry.attempts += 1;
    this.send(entry)
      .then((outcome) => {
        this.releaseSlot();
        this.settle(lane, entry, outcome);
      })
      .catch((err: unknown) => {
        // Only reachable if a custom clock throws; give the event up and keep the lane moving.
        this.log('error', 'event poster internal error', { ...idsOf(entry.event), error: errorText(err) });
        if (lane.head !== entry) return;
        lane.head = undefined;
        this.drop(entry, 'retry_cap');
        this.kick(lane);
      });
  }

  /** Frees a send slot and hands it to the attempts that have waited longest for one. */
  private releaseSlot(): void {
    this.inFlight -= 1;
    while (this.inFlight < this.maxInFlight) {
      const waiter = this.slotWaiters.shift();
      if (!waiter) return;
      waiter();
    }
  }

  private async send(entry: QueuedEvent): Promise<DeliveryOutcome> {
    try {
      const outcome = await this.transport.send({
        event: entry.event,
        body: entry.body,
        attempt: entry.attempts,
      });
      if (outcome && typeof outcome === 'object' && typeof outcome.ok === 'boolean') return outcome;
      return { ok: false, error: 'transport returned no outcome' };
    } catch (err) {
      return { ok: false, error: `transport threw: ${errorText(err)}` };
    }
  }

  private settle(lane: Lane, entry: QueuedEvent, outcome: DeliveryOutcome): void {
    if (entry.state !== 'inflight') return; // abandoned by aclose()
    if (outcome.ok) {
      lane.head = undefined;
      this.counters.delivered += 1;
      this.finish(entry, 'delivered');
      this.next(lane);
      return;
    }
    entry.lastError = outcome.error;
    const now = this.clock.now();
    if (now >= entry.deadline || this.stopped) {
      lane.head = undefined;
      this.drop(entry, 'retry_cap');
      this.next(lane);
      return;
    }
    const delay = retryDelay(this.schedule, entry.attempts, outcome.retryAfterMs);
    const wait = Math.min(now + delay, entry.deadline) - now;
    this.counters.retried += 1;
    this.log(entry.attempts === 1 ? 'warn' : 'debug', 'event delivery failed; will retry', {
      ...idsOf(entry.event),
      attempt: entry.attempts,
      status: outcome.status,
      error: outcome.error,
      retry_in_ms: wait,
    });
    lane.timer = this.clock.setTimeout(() => {
      lane.timer = undefined;
      if (entry.state === 'inflight' && !this.stopped) this.attempt(lane, entry);
    }, wait);
  }

  private drop(entry: QueuedEvent, reason: DropReason): void {
    this.finish(entry, 'dropped');
    this.countDrop(entry, reason);
  }

  private countDrop(entry: QueuedEvent, reason: DropReason): void {
    this.counters.dropped += 1;
    const context = { nowMs: this.clock.now(), maxQueue: this.maxQueue, maxRetryMs: this.maxRetryMs };
    const { message, meta } = dropLine(entry, reason, context);
    this.log('error', message, meta);
  }

  private finish(entry: QueuedEvent, state: 'delivered' | 'dropped'): void {
    entry.state = state;
    this.depth -= 1;
    this.flushWaiters.settled(entry.order);
  }

  /** Gives up every waiting and in-flight event (aclose deadline); returns how many. */
  private abandonAll(): number {
    let count = 0;
    for (const lane of this.lanes) {
      this.clearLaneTimer(lane);
      if (lane.head) {
        lane.head.state = 'abandoned';
        lane.head = undefined;
        count += 1;
      }
    }
    for (const entry of this.waiting.drain()) {
      entry.state = 'abandoned';
      count += 1;
    }
    this.depth = 0;
    return count;
  }

  private clearLaneTimer(lane: Lane): void {
    if (lane.timer !== undefined) this.clock.clearTimeout(lane.timer);
    lane.timer = undefined;
  }

  private laneAt(index: number): Lane {
    const lane = this.lanes[index];
    if (!lane) throw new RangeError(`lane ${index} does not exist`);
    return lane;
  }

  private log(level: 'error' | 'warn' | 'debug', message: string, meta: LogMeta): void {
    try {
      this.logger[level](message, meta);
    } catch {
      // A broken logger must not break delivery.
    }
  }
}
