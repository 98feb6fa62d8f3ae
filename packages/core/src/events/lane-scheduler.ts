import { context } from '@opentelemetry/api';
import { type Clock, type TimerHandle } from '../clock/clock.port.js';
import { endAttempt, startAttemptSpan } from '../telemetry/delivery-telemetry.js';
import { type LogMeta } from '../logging/logger.js';
import { errorText, idsOf } from './delivery-log.js';
import { type QueuedEvent } from './event-queue.js';
import { Fifo } from './fifo.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { POSTER_DEFAULTS, retryDelay } from './poster-options.js';
import { type PosterQueue } from './poster-queue.js';

const RESOLVED = Promise.resolve();

interface Lane {
  readonly index: number;
  /** The event being sent or waiting for its next retry. */
  head: QueuedEvent | undefined;
  timer: TimerHandle | undefined;
  kickPending: boolean;
  /** The lane's kick, made once: a kick queues it as a microtask (no closure per event). */
  readonly run: () => void;
}

/** What the scheduler reports back to the poster. */
export interface SchedulerHooks {
  delivered(entry: QueuedEvent): void;
  /** The lane head gave up (retry cap, or an internal error). */
  gaveUp(entry: QueuedEvent): void;
  retried(): void;
  log(level: 'error' | 'warn' | 'debug', message: string, meta: LogMeta): void;
}

export interface SchedulerOptions {
  readonly lanes: number;
  /** Undefined: the transport's `maxInFlight` (a positive integer), else the poster's default. */
  readonly maxInFlight: number | undefined;
  readonly schedule: { retryDelaysMs: readonly number[]; retryEveryMs: number };
  readonly transport: EventTransport;
  readonly clock: Clock;
  readonly queue: PosterQueue;
  readonly hooks: SchedulerHooks;
}

/**
 * Sends the queued events: one at a time per lane, in order, at most `maxInFlight` sends at
 * once (a lane waiting for its retry holds no send slot), with the retry schedule of spec §3.1.
 */
export class LaneScheduler {
  private readonly lanes: Lane[];
  /** Attempts waiting for a send slot, in the order they became ready. */
  private readonly slotWaiters = new Fifo<() => void>();
  private inFlight = 0;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {
    this.lanes = Array.from({ length: options.lanes }, (_, index) => {
      const lane: Lane = {
        index,
        head: undefined,
        timer: undefined,
        kickPending: false,
        run: () => {
          lane.kickPending = false;
          this.next(lane);
        },
      };
      return lane;
    });
  }

  /** Starts the lane on a microtask if it is idle, so `post()` never runs a send itself. */
  kick(laneIndex: number): void {
    const lane = this.lanes[laneIndex];
    if (!lane || lane.head || lane.kickPending || this.stopped) return;
    lane.kickPending = true;
    // A promise job, not queueMicrotask: the same microtask queue, without an AsyncResource and a
    // bound function per kick.
    void RESOLVED.then(lane.run);
  }

  /** Stops every lane: timers cleared, waiting attempts forgotten. */
  stop(): void {
    this.stopped = true;
    for (const lane of this.lanes) this.clearTimer(lane);
    this.slotWaiters.drain();
  }

  /** Abandons every lane head (aclose deadline); returns them. */
  abandonHeads(): QueuedEvent[] {
    const heads: QueuedEvent[] = [];
    for (const lane of this.lanes) {
      this.clearTimer(lane);
      if (!lane.head) continue;
      lane.head.state = 'abandoned';
      heads.push(lane.head);
      lane.head = undefined;
    }
    return heads;
  }

  private next(lane: Lane): void {
    if (lane.head || this.stopped) return;
    for (;;) {
      const entry = this.options.queue.take(lane.index);
      if (!entry) return;
      entry.state = 'inflight';
      if (this.options.clock.now() > entry.deadline) {
        entry.lastError ??= 'not attempted: the queue was behind';
        this.options.hooks.gaveUp(entry);
        continue;
      }
      lane.head = entry;
      this.attempt(lane, entry);
      return;
    }
  }

  private attempt(lane: Lane, entry: QueuedEvent): void {
    if (entry.state !== 'inflight' || this.stopped) return; // abandoned while it waited for a slot
    if (this.inFlight >= this.limit()) {
      this.slotWaiters.push(() => this.attempt(lane, entry));
      return;
    }
    this.inFlight += 1;
    entry.attempts += 1;
    this.send(entry).then(
      (outcome) => this.sent(lane, entry, outcome),
      (err: unknown) => this.sent(lane, entry, { ok: false, error: `transport threw: ${errorText(err)}` }),
    );
  }

  /** An attempt came back: frees its slot, then settles the lane head. */
  private sent(lane: Lane, entry: QueuedEvent, outcome: unknown): void {
    this.releaseSlot();
    try {
      this.settle(lane, entry, asOutcome(outcome));
    } catch (err) {
      // Only reachable if a custom clock throws; give the event up and keep the lane moving.
      this.options.hooks.log('error', 'event poster internal error', {
        ...idsOf(entry.event),
        error: errorText(err),
      });
      if (lane.head !== entry) return;
      lane.head = undefined;
      this.options.hooks.gaveUp(entry);
      this.kick(lane.index);
    }
  }

  /** Frees a send slot and hands it to the attempts that have waited longest for one. */
  private releaseSlot(): void {
    this.inFlight -= 1;
    while (this.inFlight < this.limit()) {
      const waiter = this.slotWaiters.shift();
      if (!waiter) return;
      waiter();
    }
  }

  /** The send slots: the poster's option, else what the transport carries well, else 8. */
  private limit(): number {
    if (this.options.maxInFlight !== undefined) return this.options.maxInFlight;
    const preferred = this.options.transport.maxInFlight;
    return typeof preferred === 'number' && Number.isSafeInteger(preferred) && preferred >= 1
      ? preferred
      : POSTER_DEFAULTS.maxInFlight;
  }

  /** One attempt through the transport; a transport that throws at once counts as a failed attempt. */
  private send(entry: QueuedEvent): Promise<unknown> {
    try {
      const { transport } = this.options;
      const delivery = new Delivery(entry.event, entry.body, entry.attempts);
      const traced = startAttemptSpan(entry.event, entry.attempts, entry.trace);
      if (traced === undefined) return Promise.resolve(transport.send(delivery));
      // the attempt's span is active while the transport sends: it injects it (traceparent)
      entry.attemptSpan = traced.span;
      return Promise.resolve(context.with(traced.context, transport.send, transport, delivery));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private settle(lane: Lane, entry: QueuedEvent, outcome: DeliveryOutcome): void {
    const span = entry.attemptSpan;
    entry.attemptSpan = undefined;
    if (entry.state !== 'inflight') {
      span?.end(); // abandoned by aclose()
      return;
    }
    if (outcome.ok) {
      endAttempt(entry.event, span, outcome, 'delivered');
      lane.head = undefined;
      this.options.hooks.delivered(entry);
      this.next(lane);
      return;
    }
    entry.lastError = outcome.error;
    const { clock, schedule, hooks } = this.options;
    const now = clock.now();
    if (now >= entry.deadline || this.stopped) {
      endAttempt(entry.event, span, outcome, 'gave_up');
      lane.head = undefined;
      hooks.gaveUp(entry);
      this.next(lane);
      return;
    }
    const delay = retryDelay(schedule, entry.attempts, outcome.retryAfterMs);
    const wait = Math.min(now + delay, entry.deadline) - now;
    endAttempt(entry.event, span, outcome, 'retry', wait);
    hooks.retried();
    hooks.log(entry.attempts === 1 ? 'warn' : 'debug', 'event delivery failed; will retry', {
      ...idsOf(entry.event),
      attempt: entry.attempts,
      status: outcome.status,
      error: outcome.error,
      retry_in_ms: wait,
    });
    lane.timer = clock.setTimeout(() => {
      lane.timer = undefined;
      if (entry.state === 'inflight' && !this.stopped) this.attempt(lane, entry);
    }, wait);
  }

  private clearTimer(lane: Lane): void {
    if (lane.timer !== undefined) this.options.clock.clearTimeout(lane.timer);
    lane.timer = undefined;
  }
}

/** What a transport answered, as an outcome (anything without a boolean `ok` is a failed attempt). */
function asOutcome(outcome: unknown): DeliveryOutcome {
  const value = outcome as DeliveryOutcome | undefined;
  if (value && typeof value === 'object' && typeof value.ok === 'boolean') return value;
  return { ok: false, error: 'transport returned no outcome' };
}

/** One attempt as the transport gets it (a class for the reason given at `QueuedEntry`). */
class Delivery implements EventDelivery {
  constructor(
    readonly event: TaskEvent,
    readonly body: string,
    readonly attempt: number,
  ) {}
}
