/** Summary statistics of a sample of durations (or any numbers). */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p95: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/** The `q`-quantile (0..1) of an ascending-sorted sample, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median, p95, mean, min and max of `values`. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((acc, v) => acc + v, 0);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    mean: sorted.length > 0 ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Nanoseconds elapsed since `start` (from `process.hrtime.bigint()`), as microseconds. */
export function microsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1000;
}
