/** One task's key in a {@link SeqStateStore}: the server that posts it and its task id. */
export interface SeqTaskRef {
  readonly server: string;
  readonly taskId: string;
}

/** What {@link SeqStateStore.begin} found for an event's seq. */
export type SeqBegin =
  /**
   * The task's highest delivered seq (0: none yet) and, when the seqs before this one are missing
   * and not reported before, the gap: `expected` is the seq that should have come next. The store
   * has recorded the gap as reported (it is reported once, by one instance).
   */
  | { readonly state: 'ok'; readonly highest: number; readonly gapExpected: number | undefined }
  /**
   * The store cannot answer now (a shared store is unreachable): the event must be refused
   * (503 + `Retry-After: retryAfterS`) so that the poster retries. The adapter logs why.
   */
  | { readonly state: 'unavailable'; readonly retryAfterS: number };

/**
 * The per-task `seq` memory of a receiver (the seq-state port), for several app instances
 * behind a load balancer that each see part of a task's events. Each call is atomic per task.
 * Without it a receiver keeps this state in its own memory (the default).
 */
export interface SeqStateStore {
  /**
   * Before delivering an event of `seq`: the highest seq delivered, and the gap to report if
   * `seq` is past the expected one (one past `highest`, or past the `coalesced` ranges — sorted
   * inclusive `[from, to]` — that start right after it) and the seqs before it were not
   * reported as a gap yet.
   */
  begin(task: SeqTaskRef, seq: number, coalesced: readonly [number, number][]): SeqBegin | Promise<SeqBegin>;
  /**
   * After `onEvent` accepted a non-late event: raises the highest seq to `seq` (and marks the
   * task finished when `finished`, so the store may forget it after its TTL). Resolves to the
   * highest seq before. A rejection is logged by the receiver (the event was delivered).
   */
  commit(task: SeqTaskRef, seq: number, finished: boolean): number | Promise<number>;
  close?(): void | Promise<void>;
}
