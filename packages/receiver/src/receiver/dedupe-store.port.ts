/** What {@link DedupeStore.claim} found for a key. */
export type DedupeClaim =
  /** Delivered before, and still remembered. */
  | { readonly state: 'seen' }
  /** Being delivered right now by another request: resolves true once delivered, false if refused. */
  | { readonly state: 'in_flight'; readonly outcome: Promise<boolean> }
  /**
   * The store is full of ids it may not forget yet (still inside the replay window): the event
   * must be refused (503 + `Retry-After: retryAfterS`) so that the poster retries later.
   */
  | { readonly state: 'full'; readonly retryAfterS: number }
  /**
   * The store cannot answer now (a shared store is unreachable): the event must be refused
   * (503 + `Retry-After: retryAfterS`) rather than delivered without its claim. The adapter logs why.
   */
  | { readonly state: 'unavailable'; readonly retryAfterS: number }
  /** New: the caller delivers it and must call `settle` exactly once. */
  | { readonly state: 'claimed'; settle(delivered: boolean): void | Promise<void> };

/**
 * The `event_id` memory of a receiver (the dedupe port). An adapter must never forget a key
 * while a request carrying it can still pass the timestamp check (its replay window); when it
 * cannot take a new key without doing so, it answers `full`. Asynchronous-capable so that a
 * shared store (Redis, a database) can implement it; {@link InMemoryDedupeStore} is the default.
 */
export interface DedupeStore {
  claim(key: string): DedupeClaim | Promise<DedupeClaim>;
  /** Keys remembered now, for stats (an estimate is fine). */
  readonly size: number;
  close?(): void | Promise<void>;
}
