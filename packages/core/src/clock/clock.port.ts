/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * The time port: everything in the kit that waits or reads the time goes through a Clock, so
 * tests can replace it with a `ManualClock` and run minutes of retries in milliseconds.
 */
export interface Clock {
  /** Unix time in milliseconds. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock. Its timers are unref'd so a pending retry never keeps a process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, Math.max(0, ms));
    timer.unref();
    return timer as unknown as TimerHandle;
  },
  clearTimeout: (handle) => clearTimeout(handle as unknown as NodeJS.Timeout),
};
