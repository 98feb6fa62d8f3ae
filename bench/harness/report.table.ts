import { type BenchRow } from './bench-row.js';

function fmt(value: number, unit: BenchRow['unit']): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'events/s') return `${Math.round(value).toLocaleString('en-US')}/s`;
  if (unit === 'KB') return `${value.toFixed(1)} KB`;
  return value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(1)} us`;
}

function statusOf(row: BenchRow, quick: boolean): string {
  if (!row.target) return 'info';
  const verdict = row.pass ? 'PASS' : 'MISS';
  return quick ? `(${verdict})` : verdict;
}

/**
 * The table rows as cells: scenario, kit median/p95, baseline median/p95, ratio, CPU-time ratio
 * (subject CPU per op / baseline CPU per op: a cost, lower is better), target, status.
 */
export function tableCells(rows: readonly BenchRow[], quick: boolean): string[][] {
  return rows.map((row) => [
    row.scenario,
    fmt(row.subject.median, row.unit),
    fmt(row.subject.p95, row.unit),
    row.baseline,
    fmt(row.base.median, row.unit),
    fmt(row.base.p95, row.unit),
    `${row.ratio.toFixed(2)}x`,
    row.cpuRatio === undefined ? 'n/a' : `${row.cpuRatio.toFixed(2)}x`,
    row.target ? `${row.target.op} ${row.target.value}x` : '-',
    statusOf(row, quick),
  ]);
}

export const TABLE_HEADER = [
  'scenario',
  'median',
  'p95',
  'baseline',
  'base median',
  'base p95',
  'ratio',
  'cpu ratio',
  'target',
  'status',
];

/** A plain-text table with aligned columns. */
export function textTable(header: readonly string[], body: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** A GitHub-flavoured markdown table. */
export function markdownTable(header: readonly string[], body: readonly string[][]): string {
  const row = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [row(header), row(header.map(() => '---')), ...body.map(row)].join('\n');
}
