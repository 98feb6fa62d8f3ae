import { type Clock } from '../clock/clock.port.js';

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
