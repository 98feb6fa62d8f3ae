import { type TaskEvent } from '../models/task-event.model.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';

/** Decides the outcome of one attempt; may be async (return a pending promise to hold a send). */
export type DeliveryHandler = (delivery: EventDelivery) => DeliveryOutcome | Promise<DeliveryOutcome>;

/** One attempt as recorded by {@link InMemoryEventTransport}. */
export interface RecordedDelivery extends EventDelivery {
  readonly outcome: DeliveryOutcome;
}

/** Options of {@link InMemoryEventTransport}. */
export interface InMemoryEventTransportOptions {
  /**
   * Keep `deliveries`, `events` and `attempts` (default true). `false` for a long-running sink
   * whose handler checks each delivery itself (a soak, a benchmark): nothing is kept after it.
   */
  readonly record?: boolean;
}

const SCRIPTED_FAILURE: DeliveryOutcome = { ok: false, status: 503, error: 'HTTP 503 (scripted)' };
const ACKNOWLEDGED: DeliveryOutcome = Object.freeze({ ok: true, status: 200 });

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * The in-memory adapter of the {@link EventTransport} port, for tests: records every attempt and
 * every acknowledged event, and can be scripted to fail (`failNext`) or to answer through a handler.
 */
export class InMemoryEventTransport implements EventTransport {
  readonly description = 'memory';
  /** Every attempt, in the order they completed, with its outcome. */
  readonly deliveries: RecordedDelivery[] = [];
  /** The acknowledged (ok) events, in the order they were acknowledged. */
  readonly events: TaskEvent[] = [];
  /** Every attempt, in the order they started (including ones still pending). */
  readonly attempts: EventDelivery[] = [];
  private handler: DeliveryHandler | undefined;
  private scripted: DeliveryOutcome[] = [];
  private closedFlag = false;
  private readonly record: boolean;

  constructor(handler?: DeliveryHandler, options: InMemoryEventTransportOptions = {}) {
    this.handler = handler;
    this.record = options.record ?? true;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** The acknowledged bodies, parsed back to JSON. */
  get bodies(): unknown[] {
    return this.deliveries.filter((d) => d.outcome.ok).map((d) => JSON.parse(d.body) as unknown);
  }

  /** Makes the next `count` attempts fail with `outcome` (default a 503), before the handler runs. */
  failNext(count: number, outcome: DeliveryOutcome = SCRIPTED_FAILURE): this {
    for (let i = 0; i < count; i += 1) this.scripted.push(outcome);
    return this;
  }

  /** Answers later attempts through `handler` (`undefined` = acknowledge everything). */
  setHandler(handler: DeliveryHandler | undefined): this {
    this.handler = handler;
    return this;
  }

  /** Answers at once when the handler does (no async frame per event: a soak sends many). */
  send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    try {
      if (this.record) this.attempts.push(delivery);
      const answer = this.scripted.shift() ?? (this.handler ? this.handler(delivery) : ACKNOWLEDGED);
      return isPromiseLike(answer)
        ? Promise.resolve(answer).then((outcome) => this.recorded(delivery, outcome))
        : Promise.resolve(this.recorded(delivery, answer));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private recorded(delivery: EventDelivery, outcome: DeliveryOutcome): DeliveryOutcome {
    if (!this.record) return outcome;
    this.deliveries.push({ ...delivery, outcome });
    if (outcome.ok) this.events.push(delivery.event);
    return outcome;
  }

  async close(): Promise<void> {
    this.closedFlag = true;
  }

  /** Forgets everything recorded (not the script or handler). */
  clear(): void {
    this.deliveries.length = 0;
    this.events.length = 0;
    this.attempts.length = 0;
  }
}
