import { type Clock, type TimerHandle } from '@robot-mcp-kit/core';

interface Window {
  readonly closesAt: number;
  pending: boolean;
}

/**
 * Rate-limits notifications per key: the first touch emits at once and opens a window of
 * `intervalMs`; touches inside the window are folded into one emit when it closes (which opens the
 * next window). A 10 Hz progress stream therefore becomes at most one update per key per
 * interval, and the last state is always announced.
 *
 * Every window is `intervalMs` long, so windows close in the order they opened: they are kept in
 * a Map in that order and one timer, armed for the oldest, serves them all — 10 000 running tasks
 * cost 10 000 small entries, not 10 000 timers.
 */
export class UpdateCoalescer {
  private readonly windows = new Map<string, Window>();
  private timer: TimerHandle | undefined;
  /** Inside {@link closeDue}: windows it reopens wait for the re-arm at its end. */
  private closing = false;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
    private readonly emit: (key: string) => void,
  ) {}

  touch(key: string): void {
    const open = this.windows.get(key);
    if (open) {
      open.pending = true;
      return;
    }
    this.emit(key);
    if (this.intervalMs > 0) this.openWindow(key, this.clock.now());
  }

  /** Drops pending emits and the timer. */
  close(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.windows.clear();
  }

  private openWindow(key: string, now: number): void {
    this.windows.set(key, { closesAt: now + this.intervalMs, pending: false });
    if (this.timer === undefined && !this.closing) this.arm(this.intervalMs);
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimeout(() => this.closeDue(), ms);
  }

  /** Closes every window that is due, in the order they opened; re-arms for the next one. */
  private closeDue(): void {
    this.timer = undefined;
    const now = this.clock.now();
    this.closing = true;
    try {
      for (const [key, window] of this.windows) {
        if (window.closesAt > now) break;
        this.windows.delete(key);
        if (!window.pending) continue;
        this.emit(key);
        this.openWindow(key, now);
      }
    } finally {
      this.closing = false;
      // Armed for the oldest window left, even if an emit threw.
      const next = this.windows.values().next();
      if (!next.done && this.timer === undefined) this.arm(Math.max(0, next.value.closesAt - now));
    }
  }
}
