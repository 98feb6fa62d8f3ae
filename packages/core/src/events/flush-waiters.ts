import { type Clock, type TimerHandle } from '../clock/clock.port.js';

interface FlushWaiter {
  /** Accept order of the last event this flush waits for. */
  readonly upTo: number;
  /** How many of those events are still neither delivered nor dropped. */
  remaining: number;
  timer: TimerHandle | undefined;
  resolve(done: boolean): void;
}

/** The pending `flush()` calls of a poster, each waiting for the events accepted before it. */
export class FlushWaiters {
  private readonly waiters = new Set<FlushWaiter>();

  constructor(private readonly clock: Clock) {}

  /**
   * Resolves `true` when `outstanding` events with accept order <= `upTo` have settled, `false`
   * after `timeoutMs` on the clock (never, without a timeout).
   */
  wait(upTo: number, outstanding: number, timeoutMs?: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: FlushWaiter = {
        upTo,
        remaining: outstanding,
        timer: undefined,
        resolve: (done) => {
          if (waiter.timer !== undefined) this.clock.clearTimeout(waiter.timer);
          this.waiters.delete(waiter);
          resolve(done);
        },
      };
      this.waiters.add(waiter);
      if (timeoutMs !== undefined)
        waiter.timer = this.clock.setTimeout(() => waiter.resolve(false), timeoutMs);
    });
  }

  /** Records that the event with accept order `order` was delivered or dropped. */
  settled(order: number): void {
    for (const waiter of [...this.waiters]) {
      if (order > waiter.upTo) continue;
      waiter.remaining -= 1;
      if (waiter.remaining <= 0) waiter.resolve(true);
    }
  }

  /** Resolves every pending flush with `done` and clears their timers. */
  resolveAll(done: boolean): void {
    for (const waiter of [...this.waiters]) waiter.resolve(done);
  }
}
