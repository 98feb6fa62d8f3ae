/** What every scenario gets from the runner. */
export interface BenchContext {
  /** `--quick`: few rounds, only to prove the scenario runs (CI). */
  readonly quick: boolean;
  /** Progress lines on stderr. */
  log(message: string): void;
}

/** Picks the quick or the full value. */
export function sized<T>(ctx: BenchContext, quick: T, full: T): T {
  return ctx.quick ? quick : full;
}

/** Throws when a benchmark's own sanity check fails: a benchmark of a broken path is worthless. */
export class BenchCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchCheckError';
  }
}
