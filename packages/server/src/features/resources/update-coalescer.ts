import { type Clock, type TimerHandle } from '@robot-mcp-kit/core';

interface Window {
  timer: TimerHandle;
  pending: boolean;
}

/**
 * Rate-limits notifications per key: the first touch emits at once and opens a window of
 * `intervalMs`; touches inside the window are folded into one emit when it closes. A 10 Hz
 * progress stream therefore becomes at most one update per key per interval, and the last state is
 * always announced.
 */
export class UpdateCoalescer {
  private readonly windows = new Map<string, Window>();

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
    if (this.intervalMs > 0) this.openWindow(key);
  }

  /** Drops pending emits and their timers. */
  close(): void {
    for (const window of this.windows.values()) this.clock.clearTimeout(window.timer);
    this.windows.clear();
  }

  private openWindow(key: string): void {
    const window: Window = {
      pending: false,
      timer: this.clock.setTimeout(() => {
        this.windows.delete(key);
        if (!window.pending) return;
        this.emit(key);
        this.openWindow(key);
      }, this.intervalMs),
    };
    this.windows.set(key, window);
  }
}
