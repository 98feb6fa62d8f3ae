import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { type Clock, systemClock } from '../clock/clock.port.js';
import { countGone, countQueued } from '../telemetry/delivery-telemetry.js';
import { type Logger, type LogMeta, silentLogger } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type OutboxRecord } from './event-outbox.port.js';
import { type QueuedEvent, QueuedEntry, laneOf } from './event-queue.js';
import { createEventTransportFromEnv } from './event-transport.factory.js';
import { type EventSink, type EventTransport, type FlushReport, type PosterStats } from './event.types.js';
import { dropLine, errorText, idsOf } from './delivery-log.js';
import { DropSummary } from './drop-summary.js';
import { FlushWaiters } from './flush-waiters.js';
import { GatedEventTransport } from './gated-event.transport.js';
import { LaneScheduler } from './lane-scheduler.js';
import {
  type EventPosterEnvOptions,
  type EventPosterOptions,
  type ValidPosterOptions,
  posterOptionsFromEnv,
  validatePosterOptions,
} from './poster-options.js';
import { type DropReason, PosterQueue, costOf } from './poster-queue.js';
import { type OutboxStats, PosterOutbox } from './poster-outbox.js';

export type { EventPosterEnvOptions, EventPosterOptions } from './poster-options.js';
export type { DropReason } from './poster-queue.js';
export type { OutboxStats } from './poster-outbox.js';

/**
 * `text`, flattened. V8's JSON.stringify returns a tree of string pieces (a ~230-character event
 * body: ~390 B as a tree, ~250 B flat); a body waits in the queue, under overload long enough to
 * reach the old generation, so it is made one flat string at once (reading one character does it).
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/** Called with every event the poster gives up or coalesces, and why. */
export type DropListener = (event: TaskEvent, reason: DropReason) => void;

/**
 * The event sink of a server (spec §3.1, §4.3): accepts events without blocking and delivers
 * them through an {@link EventTransport}, at least once, in `seq` order per task, with retries
 * (0.5 s, 2 s, 8 s, then every 30 s, up to 10 minutes per event) and a queue bounded in count
 * (`maxQueue`) and bytes (`maxQueueBytes`).
 *
 * Events are spread over `lanes` by task id; each lane sends one event at a time, so a task
 * whose events keep failing delays only the tasks that share its lane. At most `maxInFlight`
 * sends run at once; a lane waiting for a retry holds no send slot. Under overload progress is
 * coalesced per task (see `PosterQueue`); drops are logged as a summary every 10 s.
 */
export class EventPoster implements EventSink {
  readonly serverName: string;
  private readonly transport: EventTransport;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly valid: ValidPosterOptions;
  private readonly queue: PosterQueue;
  private readonly scheduler: LaneScheduler;
  private readonly summary: DropSummary;
  private readonly dropListeners = new Set<DropListener>();
  private readonly flushWaiters: FlushWaiters;
  /** The durable outbox, when one is configured (none: today's in-memory path, untouched). */
  private readonly outbox: PosterOutbox | undefined;
  private readonly counters = { accepted: 0, delivered: 0, retried: 0, dropped: 0, coalesced: 0 };
  private order = 0;
  private closing = false;
  private closePromise: Promise<FlushReport> | undefined;

  constructor(options: EventPosterOptions) {
    const valid = validatePosterOptions(options);
    this.valid = valid;
    this.serverName = valid.serverName;
    this.transport = valid.transport;
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ server: valid.serverName });
    this.flushWaiters = new FlushWaiters(this.clock);
    if (options.outbox !== undefined)
      this.outbox = new PosterOutbox(options.outbox, (level, message, meta) =>
        this.log(level, message, meta),
      );
    this.summary = new DropSummary(this.clock, (level, message, meta) => this.log(level, message, meta));
    this.queue = new PosterQueue(valid.lanes, valid, (entry, reason) => this.gone(entry, reason));
    this.scheduler = new LaneScheduler({
      lanes: valid.lanes,
      maxInFlight: valid.maxInFlight,
      schedule: { retryDelaysMs: valid.retryDelaysMs, retryEveryMs: valid.retryEveryMs },
      transport: options.deliveryGate
        ? new GatedEventTransport(valid.transport, options.deliveryGate)
        : valid.transport,
      clock: this.clock,
      queue: this.queue,
      hooks: {
        delivered: (entry) => {
          this.counters.delivered += 1;
          this.queue.release(entry);
          this.finish(entry, 'delivered');
        },
        gaveUp: (entry) => {
          this.queue.release(entry);
          this.gone(entry, 'retry_cap');
        },
        retried: () => {
          this.counters.retried += 1;
        },
        log: (level, message, meta) => this.log(level, message, meta),
      },
    });
  }

  /**
   * A poster configured from `RVC_CALLBACK_URL` / `RVC_EVENT_SECRET` (spec §3.4), plus the
   * optional `RVC_EVENT_QUEUE_MAX_BYTES`: HTTP when the URL is set, a no-op when it is not.
   * @throws ConfigError when the URL is malformed, the secret is missing or a limit is invalid.
   */
  static fromEnv(serverName: string, options: EventPosterEnvOptions = {}): EventPoster {
    const { env, timeoutMs, ...rest } = options;
    const fromEnv = posterOptionsFromEnv(env ?? process.env);
    const transport = createEventTransportFromEnv(serverName, {
      env,
      timeoutMs,
      logger: options.logger,
      clock: options.clock,
      retryCapMs: options.maxRetryMs,
    });
    return new EventPoster({ ...fromEnv, ...rest, serverName, transport });
  }

  /** Opens the transport when it needs it (brokers connect); @throws ConfigError with the fix. */
  async open(): Promise<void> {
    await this.transport.open?.();
    await this.outbox?.outbox.start((records) => this.recover(records));
  }

  /** The transport's description (`noop` or the URL), for logs. */
  get target(): string {
    return this.transport.description;
  }

  get stats(): PosterStats {
    return { ...this.counters, queueDepth: this.queue.depth, queueBytes: this.queue.bytes };
  }

  /** Counters of the durable outbox; undefined without one. */
  get outboxStats(): OutboxStats | undefined {
    return this.outbox ? { ...this.outbox.counts } : undefined;
  }

  /**
   * Enqueues `event` for delivery. Never throws, never waits. With an `outbox` it also appends the
   * event there and returns the write: the promise resolves once the event is durable (or the
   * outbox refused it: logged, counted, the event still goes out from memory); it never rejects.
   * Without an outbox it returns nothing.
   */
  post(event: TaskEvent): void | Promise<void> {
    try {
      return this.accept(event);
    } catch (err) {
      this.log('error', 'event poster failed to accept an event', { ...idsOf(event), error: errorText(err) });
      return undefined;
    }
  }

  /** Calls `listener` with every event dropped or coalesced, and why. Returns the unsubscribe function. */
  subscribeDrops(listener: DropListener): () => void {
    this.dropListeners.add(listener);
    return () => {
      this.dropListeners.delete(listener);
    };
  }

  /**
   * Resolves `true` once every event accepted so far has been delivered or dropped, `false` when
   * `timeoutMs` (on the poster's clock) passes first. Without a timeout it may wait forever.
   */
  flush(timeoutMs?: number): Promise<boolean> {
    if (this.queue.depth === 0) return Promise.resolve(true);
    if (timeoutMs !== undefined && timeoutMs <= 0) return Promise.resolve(false);
    return this.flushWaiters.wait(this.order, this.queue.depth, timeoutMs);
  }

  /**
   * Forgets every queued event — not sent, not removed from the outbox (nor counted as dropped) —
   * and goes on accepting new ones: the events belong to the replica that took this one's tasks
   * over (this one was fenced). An attempt already under way finishes. Returns how many.
   */
  relinquish(): number {
    const left = [...this.scheduler.abandonHeads(), ...this.queue.drainAll()];
    for (const entry of left) {
      entry.state = 'abandoned';
      this.flushWaiters.settled(entry.order);
    }
    this.outbox?.outbox.relinquish?.();
    if (left.length > 0) {
      this.log('warn', `relinquished ${left.length} undelivered events to the replica that took over`, {
        relinquished: left.length,
      });
    }
    return left.length;
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
    if (!flushed) {
      for (const entry of [...this.scheduler.abandonHeads(), ...this.queue.drainAll()]) {
        entry.state = 'abandoned';
        unflushed += 1;
      }
      countQueued(-unflushed);
    }
    this.scheduler.stop();
    this.flushWaiters.resolveAll(unflushed === 0);
    this.summary.flush();
    await this.outbox?.close(); // abandoned events stay in the outbox for the next owner
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

  private accept(event: TaskEvent): Promise<void> | undefined {
    if (this.closing) {
      this.counters.dropped += 1;
      countGone('closed');
      this.log('warn', 'event posted after the poster was closed; dropped', {
        ...idsOf(event),
        reason: 'closed',
      });
      return undefined;
    }
    let body: string;
    try {
      body = flat(JSON.stringify(event));
    } catch (err) {
      this.counters.dropped += 1;
      countGone('unserializable');
      this.log('error', 'event cannot be serialized to JSON; dropped', {
        ...idsOf(event),
        reason: 'unserializable',
        error: errorText(err),
      });
      return undefined;
    }
    const entry = this.entryOf(event, body, this.clock.now());
    // the context it was posted in (its task's span, when traced): its delivery spans' parent
    const active = context.active();
    if (active !== ROOT_CONTEXT) entry.trace = active;
    this.counters.accepted += 1;
    countQueued(1);
    if (!this.queue.admit(entry)) return this.outbox ? Promise.resolve() : undefined;
    this.scheduler.kick(entry.lane);
    if (!this.outbox) return undefined;
    // appended once admitted, so that the stored body carries a coalescing marker stamped on admission
    entry.stored = true;
    return this.outbox.append(entry, Date.now());
  }

  private entryOf(event: TaskEvent, body: string, postedAt: number): QueuedEvent {
    const taskId = String(event.task_id);
    this.order += 1;
    return new QueuedEntry(
      event,
      body,
      costOf(body),
      taskId,
      postedAt,
      postedAt + this.valid.maxRetryMs,
      laneOf(taskId, this.valid.lanes),
      this.order,
    );
  }

  /**
   * Queues events taken over from the outbox (already stored there: not appended again), with
   * their retry cap counted from their first post. Listeners are not told: no task here made them.
   */
  private recover(records: readonly OutboxRecord[]): void {
    const { outbox } = this;
    if (!outbox || this.closing) return;
    for (const record of records) {
      const age = Math.max(0, Date.now() - record.postedAtMs);
      const entry = this.entryOf(record.event, record.body, this.clock.now() - age);
      entry.stored = true;
      this.counters.accepted += 1;
      countQueued(1);
      outbox.counts.recovered += 1;
      if (this.queue.admit(entry)) this.scheduler.kick(entry.lane);
    }
  }

  /** An accepted event was given up or coalesced: counted, summarized, its memory released. */
  private gone(entry: QueuedEvent, reason: DropReason): void {
    if (reason === 'coalesced') this.counters.coalesced += 1;
    else this.counters.dropped += 1;
    countGone(reason);
    this.finish(entry, 'dropped');
    for (const listener of this.dropListeners) {
      try {
        listener(entry.event, reason);
      } catch (err) {
        this.log('error', 'drop listener threw', { ...idsOf(entry.event), error: errorText(err) });
      }
    }
    if (this.summary.record(entry.event, reason)) {
      const { message, meta } = dropLine(entry, reason, {
        nowMs: this.clock.now(),
        maxQueue: this.valid.maxQueue,
        maxQueueBytes: this.valid.maxQueueBytes,
        maxRetryMs: this.valid.maxRetryMs,
      });
      this.log(reason === 'coalesced' ? 'warn' : 'error', message, meta);
    }
  }

  private finish(entry: QueuedEvent, state: 'delivered' | 'dropped'): void {
    entry.state = state;
    countQueued(-1);
    this.flushWaiters.settled(entry.order);
    if (entry.stored) this.outbox?.ack(entry);
  }

  private log(level: 'error' | 'warn' | 'debug', message: string, meta: LogMeta): void {
    try {
      this.logger[level](message, meta);
    } catch {
      // A broken logger must not break delivery.
    }
  }
}
