import { type Clock, systemClock, type TimerHandle } from '@robot-mcp-kit/core';

/** Entry ids to remove in one script, and the callers waiting for them. */
export interface RemovalBatch {
  readonly ids: readonly string[];
  /** Settles every waiting `add()`: resolved once removed, rejected with the outage otherwise. */
  settle(error?: unknown): void;
}

/** At most this many entries are removed by one script (a long outage's retried acks come in pages). */
export const MAX_REMOVALS_PER_SCRIPT = 500;

interface Open {
  ids: string[];
  resolve: () => void;
  reject: (error: unknown) => void;
  promise: Promise<void>;
}

/**
 * The removals (XACK + XDEL) of delivered events, gathered so that they cost no round trip of
 * their own while events are being appended: the next append script takes the open batch and
 * removes its entries first (`take()`); when no append comes within `delayMs`, the batch goes
 * as one removal script of its own (`send`). A removal is only ever later, never lost: until it
 * is done its `add()` has not resolved and the event is still renewed as this replica's, and an
 * event still in the stream is at worst delivered again with the same `event_id` (at-least-once).
 */
export class RemovalQueue {
  private open: Open | undefined;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly send: (ids: readonly string[]) => Promise<unknown>,
    private readonly delayMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Resolves once the entry `id` was removed (by an append or a script of its own). */
  add(id: string): Promise<void> {
    if (this.open === undefined) {
      let resolve: () => void = () => undefined;
      let reject: (error: unknown) => void = () => undefined;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.open = { ids: [], resolve, reject, promise };
    }
    this.open.ids.push(id);
    if (this.open.ids.length >= MAX_REMOVALS_PER_SCRIPT) void this.flush();
    else this.timer ??= this.clock.setTimeout(() => void this.flush(), this.delayMs);
    return this.open.promise;
  }

  /** The open batch, for an append script to carry; undefined when none is waiting. */
  take(): RemovalBatch | undefined {
    const open = this.open;
    if (open === undefined) return undefined;
    this.open = undefined;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    return {
      ids: open.ids,
      settle: (error?: unknown) => (error === undefined ? open.resolve() : open.reject(error)),
    };
  }

  /** Sends the open batch now as a removal script of its own (close, a full batch, the delay). */
  async flush(): Promise<void> {
    const batch = this.take();
    if (batch === undefined) return;
    try {
      await this.send(batch.ids);
      batch.settle();
    } catch (error) {
      batch.settle(error);
    }
  }
}
