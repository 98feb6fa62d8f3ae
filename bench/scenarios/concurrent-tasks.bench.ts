import { fork } from 'node:child_process';
import { type BenchContext, BenchCheckError, sized } from '../harness/bench-context.js';
import { type ScaleResult } from './concurrent-tasks.child.js';

/** One absolute target of the scale scenario. */
export interface ScaleCheck {
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly target: string;
  readonly pass: boolean;
}

/** The scale scenario's runs: node defaults, and the old generation capped (see docs/benchmarks.md). */
export interface ScaleReport {
  readonly defaults: ScaleResult;
  readonly capped?: ScaleResult;
  readonly cappedFlag: string;
  readonly checks: ScaleCheck[];
}

/** The V8 flag of the second run: a 512 MB old generation makes V8 collect before it grows 4x. */
export const CAPPED_HEAP_FLAG = '--max-old-space-size=512';

/** Progress events are this far apart, so every task is still running when the last one starts. */
const STEP_MS = 300;
/** Tool calls in flight while starting (an MCP client pipelining requests on one session). */
const IN_FLIGHT = 64;

async function runChild(tasks: number, nodeFlags: readonly string[]): Promise<ScaleResult> {
  const child = fork(
    new URL('./concurrent-tasks.child.js', import.meta.url),
    [String(tasks), String(STEP_MS), String(IN_FLIGHT)],
    { execArgv: ['--expose-gc', ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  let result: ScaleResult | undefined;
  child.on('message', (message) => {
    result = message as ScaleResult;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0 || !result) throw new BenchCheckError(`the scale scenario exited with code ${code}`);
  return result;
}

/**
 * Starts N concurrent tasks (10 000 in full mode) in a fresh child process, once with node's
 * defaults and (full mode) once with the old generation capped, and checks the targets.
 */
export async function concurrentTaskBenchmark(ctx: BenchContext): Promise<ScaleReport> {
  const tasks = sized(ctx, 2000, 10_000);
  ctx.log(`${tasks} concurrent tasks, 10 progress events each (fresh process, node defaults)`);
  const defaults = await runChild(tasks, []);
  let capped: ScaleResult | undefined;
  if (!ctx.quick) {
    ctx.log(`${tasks} concurrent tasks again with ${CAPPED_HEAP_FLAG}`);
    capped = await runChild(tasks, [CAPPED_HEAP_FLAG]);
  }
  const runs = capped ? [defaults, capped] : [defaults];
  const lost = runs.reduce((n, r) => n + r.lost, 0);
  const reordered = runs.reduce((n, r) => n + r.reordered, 0);
  const checks: ScaleCheck[] = [
    {
      metric: `start ${tasks} tasks (MCP calls, ${IN_FLIGHT} in flight)`,
      value: defaults.startAllMs,
      unit: 'ms',
      target: '< 2000 ms',
      pass: defaults.startAllMs < 2000,
    },
    {
      metric: `tasks running at once (of ${tasks})`,
      value: defaults.peakRunning,
      unit: '',
      target: `${tasks}`,
      pass: defaults.peakRunning === tasks,
    },
    {
      metric: 'peak RSS, node defaults',
      value: defaults.peakRssMb,
      unit: 'MB',
      target: '< 300 MB',
      pass: defaults.peakRssMb < 300,
    },
  ];
  if (capped) {
    checks.push({
      metric: `peak RSS, ${CAPPED_HEAP_FLAG}`,
      value: capped.peakRssMb,
      unit: 'MB',
      target: '< 300 MB',
      pass: capped.peakRssMb < 300,
    });
  }
  checks.push(
    {
      metric: `events lost (${runs.length * defaults.expectedEvents} sent)`,
      value: lost,
      unit: '',
      target: '0',
      pass: lost === 0,
    },
    { metric: 'events out of seq order', value: reordered, unit: '', target: '0', pass: reordered === 0 },
  );
  return { defaults, ...(capped ? { capped } : {}), cappedFlag: CAPPED_HEAP_FLAG, checks };
}
