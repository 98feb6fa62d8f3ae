import {
  type DeliveryOutcome,
  type EventDelivery,
  type EventPoster,
  type EventTransport,
} from '@robot-mcp-kit/core';
import { type ManualClock } from '@robot-mcp-kit/core/testing';
import { turns, until } from '../../support/until.js';

// The one `until`/`turns` live in test/support; re-exported for the reliability tests.
export { turns, until };

/**
 * A decorator at our own EventTransport port that counts the sends in flight, so a test can wait
 * for real HTTP to settle before it moves the fake clock.
 */
export class TrackedTransport implements EventTransport {
  inflight = 0;
  sends = 0;
  private idleWaiters: (() => void)[] = [];
  constructor(private readonly inner: EventTransport) {}

  get description(): string {
    return this.inner.description;
  }

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    this.inflight += 1;
    this.sends += 1;
    try {
      return await this.inner.send(delivery);
    } finally {
      this.inflight -= 1;
      if (this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Resolves when no send is in flight (at once if none is): an event, not a poll. */
  idle(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

/** Waits until no send is in flight and none starts over a few more turns. */
export async function quiesce(transport: TrackedTransport, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (transport.inflight > 0) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`timed out waiting for the sends in flight to settle (${transport.inflight})`)),
          Math.max(0, limitMs - (Date.now() - started)),
        );
      });
      await Promise.race([transport.idle(), limit]).finally(() => clearTimeout(timer));
    }
    await turns(3);
    if (transport.inflight === 0) return;
  }
}

/** What a clock driver observes after every step. */
export interface DriveObserver {
  (): void;
}

/**
 * Moves the fake clock to `target`, one due timer at a time, letting the real HTTP of each step
 * settle before time moves again; `observe` runs after every step (for bounds checks).
 */
export async function driveTo(
  clock: ManualClock,
  transport: TrackedTransport,
  target: number,
  observe: DriveObserver = () => undefined,
): Promise<void> {
  await quiesce(transport);
  observe();
  for (;;) {
    const due = clock.nextDue();
    if (due === undefined || due > target) break;
    await clock.advance(Math.max(0, due - clock.now()));
    await quiesce(transport);
    observe();
  }
  if (clock.now() < target) await clock.advance(target - clock.now());
  await quiesce(transport);
  observe();
}

/** Drives the clock until the poster's queue is empty (or `limitMs` of fake time passes). */
export async function driveUntilDrained(
  clock: ManualClock,
  transport: TrackedTransport,
  poster: EventPoster,
  limitMs: number,
  observe: DriveObserver = () => undefined,
): Promise<void> {
  const end = clock.now() + limitMs;
  await quiesce(transport);
  while (poster.stats.queueDepth > 0) {
    const due = clock.nextDue();
    if (due === undefined || due > end) throw new Error(`queue not drained: ${JSON.stringify(poster.stats)}`);
    await clock.advance(Math.max(0, due - clock.now()));
    await quiesce(transport);
    observe();
  }
}

/** Prints a figure for docs/reliability.md when RELIABILITY_FIGURES=1 (silent otherwise). */
export function figure(name: string, values: Record<string, unknown>): void {
  if (process.env.RELIABILITY_FIGURES === '1')
    process.stdout.write(`FIGURE ${name} ${JSON.stringify(values)}\n`);
}

/**
 * Drives the clock from timer to timer until `done()` holds (tasks finished, queue drained), with
 * the real HTTP of each step settled before time moves again.
 */
export async function driveUntil(
  clock: ManualClock,
  transport: TrackedTransport,
  done: () => boolean,
  limitMs: number,
  observe: DriveObserver = () => undefined,
): Promise<void> {
  const end = clock.now() + limitMs;
  for (;;) {
    await quiesce(transport);
    observe();
    if (done()) return;
    const due = clock.nextDue();
    if (due === undefined || due > end) throw new Error('stuck: nothing left to wait for, or past the limit');
    await clock.advance(Math.max(0, due - clock.now()));
  }
}
