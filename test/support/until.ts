/**
 * The one set of wait helpers every test uses. A wait is always on a condition or an event, with a
 * deadline that is only a safety net against hangs (its failure names what was awaited), never a
 * timing assertion: on a loaded 2-core machine the deadline may be far away, the test stays the same.
 */

/** The default safety-net deadline of a wait, in ms (generous: the machine may be loaded). */
export const DEFAULT_LIMIT_MS = 15_000;

/** Lets queued microtasks and I/O callbacks run `count` times. */
export async function turns(count = 5): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Whether a probe's answer means "done" (anything but undefined, null and false). */
const isDone = (value: unknown): boolean => value !== undefined && value !== null && value !== false;

/**
 * Polls `condition` between event-loop turns (first) and short real pauses (then) until it is
 * truthy (an async condition is awaited).
 * `what` names the condition in the failure message (a function is called only then, to describe
 * the state at the deadline); pass a number instead for the old `until(condition, limitMs)` form.
 * Works with a fake clock: the first polls only yield turns.
 */
export async function until(
  condition: () => unknown,
  what: string | number | (() => string) = 'condition',
  limitMs: number = DEFAULT_LIMIT_MS,
): Promise<void> {
  const label = () => (typeof what === 'string' ? what : typeof what === 'function' ? what() : 'condition');
  const limit = typeof what === 'number' ? what : limitMs;
  const started = Date.now();
  for (let turn = 0; ; turn += 1) {
    // A synchronous condition is checked synchronously (no extra microtask), like the old copies did.
    let holds = condition();
    if (holds instanceof Promise) holds = await holds;
    if (holds) return;
    if (Date.now() - started > limit) throw new Error(`timed out after ${limit} ms waiting for ${label()}`);
    if (turn < 20) await turns(1);
    else await new Promise<void>((resolve) => setTimeout(resolve, turn < 200 ? 2 : 20));
  }
}

/** A probe for {@link waitFor}: returns the awaited value, or undefined/null/false while not there. */
export type Probe<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

/**
 * Polls `probe` until it returns a value (not undefined/null/false) and resolves with it. Fails with
 * `what` after `limitMs`, or at once when `diagnose()` returns a reason (e.g. "the child exited").
 * The `waitFor(condition, limitMs)` form (a boolean condition, no value) is kept for older tests.
 */
export async function waitFor<T>(
  what: string,
  probe: Probe<T>,
  limitMs?: number,
  diagnose?: () => string | undefined,
): Promise<T>;
export async function waitFor(condition: () => boolean, limitMs?: number): Promise<void>;
export async function waitFor<T>(
  whatOrCondition: string | (() => boolean),
  probeOrLimit?: Probe<T> | number,
  limitMs: number = DEFAULT_LIMIT_MS,
  diagnose: () => string | undefined = () => undefined,
): Promise<T | void> {
  if (typeof whatOrCondition === 'function') {
    return until(whatOrCondition, 'condition', typeof probeOrLimit === 'number' ? probeOrLimit : limitMs);
  }
  const probe = probeOrLimit as Probe<T>;
  const started = Date.now();
  for (let turn = 0; ; turn += 1) {
    const value = await probe();
    if (isDone(value)) return value as T;
    const reason = diagnose();
    if (reason !== undefined) throw new Error(`while waiting for ${whatOrCondition}: ${reason}`);
    if (Date.now() - started > limitMs)
      throw new Error(`timed out after ${limitMs} ms waiting for ${whatOrCondition}`);
    if (turn < 20) await turns(1);
    else await new Promise<void>((resolve) => setTimeout(resolve, turn < 200 ? 5 : 25));
  }
}

/** A promise with its resolve/reject outside (a gate a test opens when it decides to). */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
} {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
