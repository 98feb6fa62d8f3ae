import { mkdir, writeFile } from 'node:fs/promises';
import { type ScaleReport } from '../scenarios/concurrent-tasks.bench.js';
import { type BenchRow } from './bench-row.js';
import { type MachineInfo } from './machine.info.js';
import { markdownTable, TABLE_HEADER, tableCells } from './report.table.js';
import { scaleCells, SCALE_HEADER } from './scale.table.js';

/** Everything one run produced. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly mode: 'quick' | 'full';
  readonly machine: MachineInfo;
  readonly rows: readonly BenchRow[];
  readonly scale?: ScaleReport;
  readonly errors: readonly { scenario: string; error: string }[];
}

/** Writes `latest.json` and `latest.md` (the tables as markdown) into `dir`; returns the JSON path. */
export async function writeResults(dir: URL, results: BenchResults): Promise<string> {
  await mkdir(dir, { recursive: true });
  const json = new URL('latest.json', dir);
  await writeFile(json, `${JSON.stringify(results, null, 2)}\n`);
  const quick = results.mode === 'quick';
  const parts = [
    `Measured ${results.generatedAt} (${results.mode}) on ${results.machine.nproc} cores, ` +
      `${results.machine.memoryGb} GB, node ${results.machine.node}, load ${results.machine.loadAverage}.`,
    '',
    markdownTable(TABLE_HEADER, tableCells(results.rows, quick)),
  ];
  if (results.scale) parts.push('', markdownTable(SCALE_HEADER, scaleCells(results.scale, quick)));
  await writeFile(new URL('latest.md', dir), `${parts.join('\n')}\n`);
  return json.pathname;
}
