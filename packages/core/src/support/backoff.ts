/**
 * An exponential backoff: the pause before each retry, from `firstMs` doubling up to `maxMs`. One
 * instance per thing retried; {@link Backoff.reset} after a success starts it over.
 *
 * ```ts
 * const backoff = new Backoff(100, 5000);
 * await sleep(backoff.next()); // 100, then 200, 400, ... 5000, 5000
 * ```
 */
export class Backoff {
  private pauseMs: number;

  constructor(
    /** The first pause, in ms. */
    readonly firstMs: number,
    /** The longest pause, in ms. */
    readonly maxMs: number,
  ) {
    this.pauseMs = firstMs;
  }

  /** The pause {@link Backoff.next} returns next, without taking it. */
  get currentMs(): number {
    return this.pauseMs;
  }

  /** The pause to wait now; the one after is twice as long, at most `maxMs`. */
  next(): number {
    const pause = this.pauseMs;
    this.pauseMs = Math.min(pause * 2, this.maxMs);
    return pause;
  }

  /** Starts over at `firstMs` (after a success). */
  reset(): void {
    this.pauseMs = this.firstMs;
  }
}
