import { type BenchContext } from './harness/bench-context.js';
import { type BenchRow } from './harness/bench-row.js';
import { machineInfo } from './harness/machine.info.js';
import { TABLE_HEADER, tableCells, textTable } from './harness/report.table.js';
import { type BenchResults, writeResults } from './harness/results.writer.js';
import { SCALE_HEADER, scaleCells } from './harness/scale.table.js';
import { coldStartBenchmarks } from './scenarios/cold-start.bench.js';
import { nativeTaskBenchmarks } from './scenarios/native-tasks.bench.js';
import { concurrentTaskBenchmark, type ScaleReport } from './scenarios/concurrent-tasks.bench.js';
import { brokerDeliveryBenchmarks } from './scenarios/broker-delivery.bench.js';
import { brokerPublishBenchmarks } from './scenarios/broker-publish.bench.js';
import { eventDeliveryBenchmarks } from './scenarios/event-delivery.bench.js';
import { idleSessionBenchmarks } from './scenarios/idle-sessions.bench.js';
import { mcpEraBenchmarks } from './scenarios/mcp-eras.bench.js';
import { taskStoreBenchmarks } from './scenarios/task-store.bench.js';
import { toolCallBenchmarks } from './scenarios/tool-calls.bench.js';
import { triggerBenchmarks } from './scenarios/triggers.bench.js';
import { rosFeedbackBenchmarks } from './scenarios/ros-feedback.bench.js';
import { telemetryBenchmarks } from './scenarios/telemetry.bench.js';

/**
 * `npm run bench [-- --quick] [--only=tools,native,delivery,cold,scale,triggers,brokers,publish,sessions,eras,store,ros,otel] [--strict]`
 *
 * Full mode prints PASS/MISS per target (and exits 1 on a MISS only with --strict); quick mode
 * (CI) runs every scenario briefly to prove it works and never judges the numbers. Either way a
 * scenario that throws makes the run exit 1.
 */
// The SDK's HTTP clients pass one AbortSignal to every fetch; undici caps it at 1500 listeners and
// lets go of each only when its request is collected, so thousands of calls between collections
// print Node's leak warning on the client side (the SDK baseline alike). Bench process only: that
// warning is dropped, every other one is printed as Node would.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'MaxListenersExceededWarning')
    process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const strict = args.includes('--strict');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const ctx: BenchContext = { quick, log: (m) => process.stderr.write(`[bench] ${m}\n`) };
const wanted = (group: string) => !only || only.includes(group);

const rows: BenchRow[] = [];
const errors: { scenario: string; error: string }[] = [];
let scale: ScaleReport | undefined;

async function attempt(name: string, run: () => Promise<void>): Promise<void> {
  if (!wanted(name)) return;
  const started = performance.now();
  try {
    await run();
    ctx.log(`${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    errors.push({ scenario: name, error });
    process.stderr.write(`[bench] ${name} FAILED: ${error}\n`);
  }
}

await attempt('tools', async () => void rows.push(...(await toolCallBenchmarks(ctx))));
await attempt('native', async () => void rows.push(...(await nativeTaskBenchmarks(ctx))));
await attempt('delivery', async () => void rows.push(...(await eventDeliveryBenchmarks(ctx))));
await attempt('cold', async () => void rows.push(...(await coldStartBenchmarks(ctx))));
await attempt('scale', async () => void (scale = await concurrentTaskBenchmark(ctx)));
await attempt('triggers', async () => void rows.push(...(await triggerBenchmarks(ctx))));
await attempt('brokers', async () => void rows.push(...(await brokerDeliveryBenchmarks(ctx))));
await attempt('publish', async () => void rows.push(...(await brokerPublishBenchmarks(ctx))));
await attempt('sessions', async () => void rows.push(...(await idleSessionBenchmarks(ctx))));
await attempt('eras', async () => void rows.push(...(await mcpEraBenchmarks(ctx))));
await attempt('store', async () => void rows.push(...(await taskStoreBenchmarks(ctx))));
await attempt('ros', async () => void rows.push(...(await rosFeedbackBenchmarks(ctx))));
await attempt('otel', async () => void rows.push(...(await telemetryBenchmarks(ctx))));

const results: BenchResults = {
  generatedAt: new Date().toISOString(),
  mode: quick ? 'quick' : 'full',
  machine: machineInfo(),
  rows,
  ...(scale ? { scale } : {}),
  errors,
};
const m = results.machine;
console.log(
  `\nrobot-mcp-kit benchmarks (${results.mode}): ${m.nproc} cores, ${m.memoryGb} GB, node ${m.node}`,
);
if (quick) console.log('quick mode: few rounds, numbers are indicative only and not judged\n');
if (rows.length > 0) console.log(textTable(TABLE_HEADER, tableCells(rows, quick)));
if (scale) console.log(`\n${textTable(SCALE_HEADER, scaleCells(scale, quick))}`);
const path = await writeResults(new URL('../results/', import.meta.url), results);
console.log(`\nwritten to ${path}`);

const misses = rows.filter((r) => !r.pass).length + (scale?.checks.filter((c) => !c.pass).length ?? 0);
if (!quick) console.log(`${misses === 0 ? 'all targets PASS' : `${misses} target(s) MISS`}`);
if (errors.length > 0) {
  console.error(`${errors.length} scenario(s) failed: ${errors.map((e) => e.scenario).join(', ')}`);
  process.exitCode = 1;
} else if (strict && !quick && misses > 0) {
  process.exitCode = 1;
}
