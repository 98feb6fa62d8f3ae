import { RobotMcpKitError } from '../errors/kit.error.js';
import { type Clock, type TimerHandle } from './clock.port.js';

interface ManualTimer {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

/**
 * The in-memory adapter of the {@link Clock} port: time moves only when a test calls
 * {@link ManualClock.advance}, which runs due timers in order and lets promises settle between them.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];

  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer: ManualTimer = { id: this.nextId++, due: this.current + Math.max(0, ms), callback };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id?: number }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** Number of timers waiting to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /** Due time of the next timer, if any. */
  nextDue(): number | undefined {
    return this.timers.reduce<number | undefined>(
      (min, t) => (min === undefined || t.due < min ? t.due : min),
      undefined,
    );
  }

  /**
   * Moves time forward by `ms`, firing each timer that falls due (in due order, then creation
   * order) and letting pending promise callbacks and I/O callbacks run after each one.
   */
  async advance(ms: number): Promise<void> {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      // NaN would fire every timer, new ones included, forever; a negative step would turn time back.
      throw new RobotMcpKitError('INVALID_ARGUMENT', `ms: expected a finite number >= 0, got ${String(ms)}`);
    }
    const target = this.current + ms;
    await settle();
    for (;;) {
      const next = this.earliestDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = next.due;
      next.callback();
      await settle();
    }
    this.current = target;
    await settle();
  }

  private earliestDue(limit: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.timers) {
      if (timer.due > limit) continue;
      if (!best || timer.due < best.due || (timer.due === best.due && timer.id < best.id)) best = timer;
    }
    return best;
  }
}

/** Lets queued microtasks and immediate callbacks run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
