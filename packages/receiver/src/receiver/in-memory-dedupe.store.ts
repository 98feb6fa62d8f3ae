import { type Clock } from '@robot-mcp-kit/core';
import { type DedupeClaim, type DedupeStore } from './dedupe-store.port.js';

/** Options of {@link InMemoryDedupeStore}; all times in ms. */
export interface InMemoryDedupeStoreOptions {
  /** How long a delivered key is remembered when there is room (default use: 3600 s). */
  readonly ttlMs: number;
  /** How long a key may never be forgotten: the replay window (2 × max skew + a margin). */
  readonly protectMs: number;
  /** Most keys remembered or in flight. */
  readonly maxEntries: number;
  /** Most bytes they may take (estimated as 2 bytes a character + 64 per key). */
  readonly maxBytes: number;
  readonly clock: Clock;
}

const ENTRY_OVERHEAD_BYTES = 64;

function costOf(key: string): number {
  return 2 * key.length + ENTRY_OVERHEAD_BYTES;
}

/**
 * The in-memory adapter of {@link DedupeStore}: delivered keys in remember order (so they expire
 * from the head), plus the keys in flight. A key is kept `ttlMs`, but may be forgotten early to
 * make room once its `protectMs` replay window has passed; if the oldest key is still inside
 * it, a new key is refused (`full`) instead — a replay is never delivered twice. Bounded in
 * count and bytes. A key whose delivery failed is forgotten, so that the retry is delivered.
 */
export class InMemoryDedupeStore implements DedupeStore {
  /** Delivered keys → when they were remembered (unix ms); Map order is remember order. */
  private readonly seen = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private bytes = 0;

  constructor(private readonly options: InMemoryDedupeStoreOptions) {}

  get size(): number {
    return this.seen.size;
  }

  /** Bytes charged for the keys remembered and in flight. */
  get bytesUsed(): number {
    return this.bytes;
  }

  claim(key: string): DedupeClaim {
    const now = this.options.clock.now();
    this.expire(now);
    const at = this.seen.get(key);
    if (at !== undefined) return { state: 'seen' };
    const pending = this.inFlight.get(key);
    if (pending) return { state: 'in_flight', outcome: pending };
    const cost = costOf(key);
    if (!this.makeRoom(cost, now)) {
      const oldest = this.seen.values().next().value;
      const until = oldest === undefined ? now + 1000 : oldest + this.options.protectMs;
      return { state: 'full', retryAfterS: Math.max(1, Math.ceil((until - now) / 1000)) };
    }
    this.bytes += cost;
    let resolve!: (delivered: boolean) => void;
    const outcome = new Promise<boolean>((r) => {
      resolve = r;
    });
    this.inFlight.set(key, outcome);
    let settled = false;
    return {
      state: 'claimed',
      settle: (delivered) => {
        if (settled) return;
        settled = true;
        this.inFlight.delete(key);
        if (delivered) this.seen.set(key, this.options.clock.now());
        else this.bytes -= cost;
        resolve(delivered);
      },
    };
  }

  /** Forgets keys past their TTL (they are in remember order). */
  private expire(now: number): void {
    for (const [key, at] of this.seen) {
      if (at + this.options.ttlMs > now) return;
      this.forget(key);
    }
  }

  /** Forgets the oldest keys past their replay window until `cost` more fits. */
  private makeRoom(cost: number, now: number): boolean {
    const { maxEntries, maxBytes, protectMs } = this.options;
    for (const [key, at] of this.seen) {
      if (this.seen.size + this.inFlight.size < maxEntries && this.bytes + cost <= maxBytes) return true;
      if (at + protectMs > now) return false;
      this.forget(key);
    }
    return this.seen.size + this.inFlight.size < maxEntries && this.bytes + cost <= maxBytes;
  }

  private forget(key: string): void {
    this.seen.delete(key);
    this.bytes -= costOf(key);
  }
}
