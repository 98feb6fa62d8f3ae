import { type Summary, summarize } from './stats.js';

/** A target on the ratio subject / baseline (`<=` for costs) or on the rate ratio (`>=`). */
export interface RatioTarget {
  readonly op: '<=' | '>=';
  readonly value: number;
}

/** One row of the result table: a subject and its baseline measured in the same run. */
export interface BenchRow {
  readonly id: string;
  readonly scenario: string;
  readonly baseline: string;
  /** `us` rows compare time per operation; `events/s` rows compare delivery rates; `KB` memory. */
  readonly unit: 'us' | 'events/s' | 'KB';
  /** In `unit`: for `us` the time per op; for `events/s` the rate (p95 = rate of the slowest 5 % of rounds). */
  readonly subject: { median: number; p95: number; n: number };
  readonly base: { median: number; p95: number; n: number };
  /** `us`, `KB`: subject median / baseline median. `events/s`: subject rate / baseline rate. */
  readonly ratio: number;
  /** Absent on informational rows. */
  readonly target?: RatioTarget;
  readonly pass: boolean;
  /** Median process CPU µs per op of the subject over the baseline's (a cost: lower is better). */
  readonly cpuRatio?: number;
  readonly notes?: string;
}

export interface RowSpec {
  readonly id: string;
  readonly scenario: string;
  readonly baseline: string;
  readonly unit: 'us' | 'events/s' | 'KB';
  /** Omitted for an informational row (shown, never judged). */
  readonly target?: RatioTarget;
  readonly notes?: string;
}

function inUnit(unit: RowSpec['unit'], s: Summary): { median: number; p95: number; n: number } {
  // Samples are always µs per op; a rate's p95 is the rate of the slow tail (the op-time p95).
  if (unit !== 'events/s') return { median: s.median, p95: s.p95, n: s.n };
  return { median: 1e6 / s.median, p95: 1e6 / s.p95, n: s.n };
}

/** Builds a row from the µs-per-op samples of both sides. */
export function makeRow(
  spec: RowSpec,
  subjectUs: readonly number[],
  baselineUs: readonly number[],
  cpu?: { readonly subject: readonly number[]; readonly baseline: readonly number[] },
): BenchRow {
  const a = summarize(subjectUs);
  const b = summarize(baselineUs);
  const ratio = spec.unit === 'events/s' ? b.median / a.median : a.median / b.median;
  const { target } = spec;
  const pass = !target || (target.op === '<=' ? ratio <= target.value : ratio >= target.value);
  const cpuRatio = cpu ? summarize(cpu.subject).median / summarize(cpu.baseline).median : undefined;
  return {
    ...spec,
    subject: inUnit(spec.unit, a),
    base: inUnit(spec.unit, b),
    ratio,
    pass,
    ...(cpuRatio !== undefined && Number.isFinite(cpuRatio) ? { cpuRatio } : {}),
  };
}
