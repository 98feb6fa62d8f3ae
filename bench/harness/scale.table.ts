import { type ScaleReport } from '../scenarios/concurrent-tasks.bench.js';

export const SCALE_HEADER = ['scale scenario', 'value', 'target', 'status'];

/** The rows of the scale scenario's table. */
export function scaleCells(report: ScaleReport, quick: boolean): string[][] {
  return report.checks.map((check) => {
    const value =
      check.unit === ''
        ? String(check.value)
        : check.unit === 'x'
          ? `${check.value.toFixed(2)}x`
          : `${check.value.toFixed(0)} ${check.unit}`;
    if (check.target === 'informational') return [check.metric, value, '-', 'info'];
    const verdict = check.pass ? 'PASS' : 'MISS';
    return [check.metric, value, check.target, quick ? `(${verdict})` : verdict];
  });
}
