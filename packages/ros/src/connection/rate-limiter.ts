/**
 * Delivers at most one value per `intervalMs`: the first at once, then the latest one seen during
 * each interval at its end (older ones are dropped, so memory holds one value).
 */
export class LatestRateLimiter<T> {
  private last = -Infinity;
  private pending: { value: T } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly deliver: (value: T) => void,
  ) {
    if (!Number.isFinite(intervalMs) || intervalMs < 0) {
      throw new TypeError(`minIntervalMs: expected a number of milliseconds >= 0, got ${String(intervalMs)}`);
    }
  }

  push(value: T): void {
    const now = Date.now();
    const wait = this.last + this.intervalMs - now;
    if (wait <= 0 && !this.timer) {
      this.last = now;
      this.deliver(value);
      return;
    }
    this.pending = { value };
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, wait));
  }

  private flush(): void {
    this.timer = undefined;
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    this.last = Date.now();
    this.deliver(pending.value);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }
}
