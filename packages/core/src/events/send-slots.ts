import { Fifo } from './fifo.js';

/**
 * A counting gate for a transport's requests: at most `size` held at once; the rest wait as one
 * resolver each, in arrival order. {@link close} lets every waiter (and every later acquire) go
 * with `false`.
 */
export class SendSlots {
  private held = 0;
  private readonly waiters = new Fifo<(granted: boolean) => void>();
  private closed = false;

  constructor(readonly size: number) {}

  /** Slots in use. */
  get inUse(): number {
    return this.held;
  }

  /** Resolves `true` once a slot is this caller's (release it exactly once), `false` when closed. */
  acquire(): Promise<boolean> | boolean {
    if (this.closed) return false;
    if (this.held < this.size) {
      this.held += 1;
      return true;
    }
    return new Promise<boolean>((resolve) => this.waiters.push(resolve));
  }

  /** Hands the slot to the longest waiter, or frees it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next(true);
    else this.held -= 1;
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.drain()) waiter(false);
  }
}
