import {
  type DeliveryOutcome,
  type EventDelivery,
  type EventPoster,
  type EventTransport,
  type ManualClock,
} from '@robot-mcp-kit/core';

/** Lets queued microtasks and I/O callbacks run `count` times. */
export async function turns(count = 5): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Polls `condition` between event-loop turns and short real pauses until it holds. The limit is a
 * safety net against hangs (a failure message), never a timing assertion.
 */
export async function until(condition: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const started = Date.now();
  for (let turn = 0; !condition(); turn += 1) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    if (turn < 20) await turns(1);
    else await new Promise<void>((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * A decorator at our own EventTransport port that counts the sends in flight, so a test can wait
 * for real HTTP to settle before it moves the fake clock.
 */
export class TrackedTransport implements EventTransport {
  inflight = 0;
  sends = 0;
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
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

/** Waits until no send is in flight and none starts over a few more turns. */
export async function quiesce(transport: TrackedTransport, limitMs = 15_000): Promise<void> {
  for (;;) {
    await until(() => transport.inflight === 0, 'the sends in flight to settle', limitMs);
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
