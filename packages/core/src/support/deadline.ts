import { type Clock } from '../clock/clock.port.js';
import { type Backoff } from './backoff.js';

/**
 * Waits for `promise` at most `ms` on `clock`: resolves `true` when it settled in time (fulfilled
 * or rejected), `false` when the time ran out first. Never rejects; the timer is cleared once it
 * settles.
 */
export function waitAtMost(promise: Promise<unknown>, clock: Clock, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = clock.setTimeout(() => resolve(false), ms);
    const done = (): void => {
      clock.clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}

/**
 * Resolves after `ms` on `clock`, or at once when `signal` aborts (then the timer is cleared).
 * Never rejects. On the system clock the timer is unref'd: a pause alone keeps no process alive.
 */
export function pause(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/**
 * Settles as `promise` does, or rejects with `Error(message)` once `ms` pass on `clock` first (a
 * rejection that is not an `Error` is wrapped in one).
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  clock: Clock,
  ms: number,
  message: string,
): Promise<T> {
  if (!(await waitAtMost(promise, clock, ms))) throw new Error(message);
  return promise.catch((err: unknown) => {
    throw err instanceof Error ? err : new Error(String(err));
  });
}

/** How {@link pollUntil} waits. */
export interface PollOptions {
  readonly clock: Clock;
  /** How long to keep asking, in ms: no attempt starts after that. */
  readonly withinMs: number;
  /** The pause between attempts: a fixed number of ms, or a {@link Backoff}'s next pause. */
  readonly pauses: number | Backoff;
  /** Pause before the first attempt too (the first answer cannot be ready at once). */
  readonly pauseFirst?: boolean;
}

/**
 * Calls `attempt` until it answers something other than `undefined`, pausing between attempts, for
 * at most `withinMs` on the clock; resolves with that answer, or `undefined` when the time ran out.
 * What `attempt` throws rejects the poll.
 */
export async function pollUntil<T>(
  attempt: () => T | undefined | Promise<T | undefined>,
  options: PollOptions,
): Promise<T | undefined> {
  const { clock, withinMs, pauses } = options;
  const deadline = clock.now() + withinMs;
  const next = (): number => (typeof pauses === 'number' ? pauses : pauses.next());
  if (options.pauseFirst) await pause(clock, next());
  for (;;) {
    const answer = await attempt();
    if (answer !== undefined) return answer;
    const wait = Math.min(next(), deadline - clock.now());
    if (wait <= 0) return undefined;
    await pause(clock, wait);
  }
}
