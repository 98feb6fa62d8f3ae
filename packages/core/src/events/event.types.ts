import { type TaskEvent } from '../models/task-event.model.js';

/** Where the TaskManager sends the events it emits. `EventPoster` is the real one. */
export interface EventSink {
  /**
   * Accepts one event; never throws, never blocks. A sink with a durable outbox returns the write:
   * a promise that resolves (never rejects) once the event survives the process.
   */
  post(event: TaskEvent): void | Promise<void>;
}

/** One delivery attempt handed to an {@link EventTransport}. */
export interface EventDelivery {
  readonly event: TaskEvent;
  /** The serialized body (UTF-8 JSON), computed once per event; the transport signs these bytes. */
  readonly body: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
}

/** What an attempt came to. Any `ok: false` is retried on the schedule. */
export type DeliveryOutcome =
  | { readonly ok: true; readonly status?: number }
  | {
      readonly ok: false;
      readonly status?: number;
      /** From a `Retry-After` header, honoured within the retry schedule. */
      readonly retryAfterMs?: number;
      /** Why, for the log: `HTTP 500`, `ECONNREFUSED`, `timeout after 10000 ms`. */
      readonly error: string;
    };

/**
 * The delivery port: sends one event once. It must not throw (report failures as `ok: false`).
 * Adapters: `HttpEventTransport`, `InMemoryEventTransport`, `NoopEventTransport`.
 */
export interface EventTransport {
  /** For logs, e.g. `http://127.0.0.1:8000/api/agent/events` or `noop`. */
  readonly description: string;
  send(delivery: EventDelivery): Promise<DeliveryOutcome>;
  /**
   * How many sends this transport carries well at once: the poster's limit when its own
   * `maxInFlight` is not set (read at every attempt, so a transport that connects later may set
   * it then). Broker transports multiplex their publishes over one connection and set more than
   * the poster's default of 8.
   */
  readonly maxInFlight?: number;
  /**
   * Connects ahead of the first event (brokers); the app awaits it at start-up so a bad URL or an
   * unreachable broker fails fast. @throws ConfigError with the fix.
   */
  open?(): Promise<void>;
  close?(): Promise<void>;
}

/** Counters of an {@link EventPoster}. */
export interface PosterStats {
  /** Events accepted by `post`. */
  accepted: number;
  /** Events acknowledged with a 2xx (or accepted by a no-op transport). */
  delivered: number;
  /** Failed attempts that were scheduled for another try. */
  retried: number;
  /** Events given up: past the retry cap, pushed out of a full queue, or posted after close. */
  dropped: number;
  /**
   * Progress events superseded under overload: their seqs ride on the task's next event as a
   * coalescing marker (docs/contract.md), so the receiver does not count them as lost.
   */
  coalesced: number;
  /** Events waiting or in flight. */
  queueDepth: number;
  /** Bytes charged for them against `maxQueueBytes` (twice the body length plus 512 per event). */
  queueBytes: number;
}

/** What {@link EventPoster.aclose} reports. */
export interface FlushReport {
  delivered: number;
  dropped: number;
  /** Events still undelivered when the deadline passed (abandoned, logged). */
  unflushed: number;
}
