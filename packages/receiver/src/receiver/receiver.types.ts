import { type DedupeStore } from './dedupe-store.port.js';
import { type SeqStateStore } from './seq-state.port.js';
import { type Clock, type Logger, type TaskEvent } from '@robot-mcp-kit/core';

/** Request headers as node:http, Express and Fastify expose them (lower-case names). */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** A request whose body has been read (or not, when a pre-check already rejects it). */
export interface RawEventRequest {
  readonly method: string | undefined;
  readonly headers: HeaderBag;
  /** The raw bytes as received; the signature is checked over exactly these bytes. */
  readonly body: Uint8Array;
  /** True when the adapter stopped reading past `maxBodyBytes` (the body is then not whole): 413. */
  readonly bodyTooLarge?: boolean;
}

/** What the receiver answers; adapters write it as an HTTP response with a JSON body. */
export interface ReceiverResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ReceiverResponseBody;
}

/** The JSON bodies of the answers (see docs/receiver.md for the table). */
export type ReceiverResponseBody =
  | { readonly ok: true; readonly duplicate?: true }
  | {
      readonly error: string;
      readonly reason?: string;
      readonly issues?: readonly { readonly field: string; readonly problems: readonly string[] }[];
      readonly max_bytes?: number;
    };

/** A hole in a task's `seq` numbers: events `expected` … `got - 1` were not seen (yet). */
export interface SeqGap {
  readonly task_id: string;
  readonly server: string;
  /** The seq the receiver expected next (1 for a task it had never seen). */
  readonly expected: number;
  /** The seq that arrived instead. */
  readonly got: number;
}

/** Handed to `onEvent` with each event. */
export interface EventContext {
  /** The server that signed the request (`X-RVC-Server`, equal to `event.server`). */
  readonly server: string;
  /** True when the seq is not newer than one already delivered for the task (an old, late event). */
  readonly late: boolean;
}

/** Receives each verified, new event. May be async; a throw or rejection answers 500 (retry). */
export type EventHandler = (event: TaskEvent, context: EventContext) => unknown;

/** Told about each gap once. Not awaited; a throw or rejection is logged and otherwise ignored. */
export type GapHandler = (gap: SeqGap) => unknown;

/** Options of {@link createEventReceiver}. */
export interface EventReceiverOptions {
  /** The HMAC secret of each server, by the name it sends in `X-RVC-Server`. */
  secrets: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  onEvent: EventHandler;
  onGap?: GapHandler;
  /** Largest accepted distance between `X-RVC-Timestamp` and now, both ways (default 300 s). */
  maxSkewS?: number;
  /** Largest accepted body (default 1 MiB); larger requests get 413 and are not read further. */
  maxBodyBytes?: number;
  /**
   * The `event_id` memory. Ids are kept `ttlS` (default 3600) and never forgotten inside the
   * replay window (2 × `maxSkewS` + 60 s); at most `max` ids (default 1,000,000) and `maxBytes`
   * (default 64 MiB). When full of ids still inside the window, new events get 503 with
   * `Retry-After` (the poster retries) instead. `store` replaces the in-memory store (e.g. a
   * shared one); the other fields are then unused.
   */
  dedupe?: { ttlS?: number; max?: number; maxBytes?: number; store?: DedupeStore };
  /**
   * In-order mode: an event that arrives before the ones it follows is held up to `holdMs`
   * for them, then delivered with the gap reported. Off by default (events are delivered as
   * they come and gaps only reported).
   */
  inOrder?: { holdMs: number };
  /**
   * Per-task `seq` memory: a task finished (`task_done`/`task_failed` delivered) is forgotten
   * `finishedTtlS` after (default 600); at most `maxTasks` tasks are kept (default 10 000, LRU).
   */
  tracking?: { maxTasks?: number; finishedTtlS?: number };
  /**
   * Shared per-task `seq` state (gap decisions and the highest seq delivered), e.g. the Redis
   * store, so that several instances behind a load balancer that each get part of a task's
   * events report only real gaps, each once. Left out: this process's memory. Not combinable
   * with `inOrder` (held events cannot wait across instances).
   */
  seqState?: { store: SeqStateStore };
  logger?: Logger;
  clock?: Clock;
}

/** A task the receiver has seen but not seen finish: hand these to `Reconciler.reconcile`. */
export interface TrackedTask {
  readonly server: string;
  readonly task_id: string;
  readonly tool?: string;
}

/** Counters of an {@link EventReceiver}. */
export interface ReceiverStats {
  /** Requests judged (every answer counts once). */
  requests: number;
  /** Events handed to `onEvent` that it accepted. */
  delivered: number;
  /** Duplicates answered 200 without delivery. */
  duplicates: number;
  /** Deliveries `onEvent` refused (answered 500). */
  failed: number;
  /** Gaps reported to `onGap`. */
  gaps: number;
  /** Events delivered with a seq not newer than one already delivered. */
  late: number;
  /** Events currently held in in-order mode. */
  held: number;
  /** Tasks whose seq is tracked. */
  trackedTasks: number;
  /** event_ids remembered for dedupe. */
  remembered: number;
  /** Events refused with 503 because the dedupe store was full of ids it may not forget yet. */
  dedupeFull: number;
  /** Events refused 503 because the dedupe store could not answer (a shared store unreachable). */
  dedupeUnavailable: number;
  /** Events refused 503 because the shared seq state could not answer. */
  seqStateUnavailable: number;
  /** Seqs reported as coalesced by a poster under overload (not counted as gaps). */
  coalesced: number;
  /** Number of answers by HTTP status. */
  byStatus: Record<number, number>;
}
