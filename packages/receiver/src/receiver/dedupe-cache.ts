import { type Clock } from '@robot-mcp-kit/core';

/** What {@link DedupeCache.claim} found for a key. */
export type Claim =
  /** Delivered before (within the TTL). */
  | { readonly state: 'seen' }
  /** Being delivered right now by another request: resolves true once delivered, false if refused. */
  | { readonly state: 'in_flight'; readonly outcome: Promise<boolean> }
  /** New: the caller delivers it and must call `settle` exactly once. */
  | { readonly state: 'claimed'; settle(delivered: boolean): void };

/**
 * The `event_id` memory: a bounded LRU of delivered keys that expire after `ttlMs` on the clock,
 * plus the keys in flight (never evicted while in flight). A key whose delivery failed is
 * forgotten, so that the retry is delivered.
 */
export class DedupeCache {
  /** Delivered keys → expiry (unix ms); Map order is insertion order, oldest first. */
  private readonly seen = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly clock: Clock,
  ) {}

  /** Delivered keys remembered now (expired ones may linger until the next sweep). */
  get size(): number {
    return this.seen.size;
  }

  claim(key: string): Claim {
    const expiry = this.seen.get(key);
    if (expiry !== undefined) {
      if (expiry > this.clock.now()) return { state: 'seen' };
      this.seen.delete(key);
    }
    const pending = this.inFlight.get(key);
    if (pending) return { state: 'in_flight', outcome: pending };
    let settle!: (delivered: boolean) => void;
    const outcome = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    this.inFlight.set(key, outcome);
    let settled = false;
    return {
      state: 'claimed',
      settle: (delivered) => {
        if (settled) return;
        settled = true;
        this.inFlight.delete(key);
        if (delivered) this.remember(key);
        settle(delivered);
      },
    };
  }

  private remember(key: string): void {
    const now = this.clock.now();
    this.seen.delete(key);
    this.seen.set(key, now + this.ttlMs);
    // Entries expire in insertion order (constant TTL, monotonic clock): sweep from the head.
    for (const [oldest, expiry] of this.seen) {
      if (expiry > now && this.seen.size <= this.max) break;
      this.seen.delete(oldest);
    }
  }
}
