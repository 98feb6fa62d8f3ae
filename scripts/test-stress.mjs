#!/usr/bin/env node
// `npm run test:stress`: runs the process-level suites (and the in-process ones that once flaked)
// several times in a row while a busy-loop child keeps one core busy, to prove they do not depend on
// timing. No retries: one failed run fails the script. Needs the build (`npm run build`).
//
// Usage: node scripts/test-stress.mjs [--runs N] [--no-busy] [jest path patterns…]
//   --runs N    how many runs in a row (default 3, or $STRESS_RUNS)
//   --no-busy   do not start the busy-loop child
//   patterns    the suites to run (default: STRESS_SUITES below)
// Exit code 0 when every run passed, 1 otherwise; prints each run's time.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The suites that run real processes or real HTTP under real time, including those that flaked. */
export const STRESS_SUITES = [
  'test/reliability/sigterm.test.ts',
  'test/reliability/app-restart.test.ts',
  'examples/chat-app-receiver/test/chat-app-receiver.e2e.test.ts',
  'examples/chat-app-receiver/test/sleeper-to-receiver.e2e.test.ts',
  'examples/chat-app-receiver/test/server-connections.test.ts',
  'examples/sleeper/test/',
  'examples/navigation/test/transports.test.ts',
  'examples/perception-watcher/test/transports.test.ts',
  'packages/server/test/features/stdio-agent.test.ts',
  'test/reliability/stdin-eof.test.ts',
  'test/reliability/preempt-pipelined.test.ts',
  'test/network/',
  'packages/brokers/test/sleeper-over-brokers.test.ts',
];

function parseArgs(argv) {
  const options = { runs: Number(process.env.STRESS_RUNS ?? 3), busy: true, suites: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--runs') options.runs = Number(argv[++i]);
    else if (arg === '--no-busy') options.busy = false;
    else if (arg.startsWith('-')) throw new Error(`test-stress: unknown option ${arg}`);
    else options.suites.push(arg);
  }
  if (!Number.isInteger(options.runs) || options.runs < 1)
    throw new Error('test-stress: --runs must be a whole number >= 1');
  if (options.suites.length === 0) options.suites = STRESS_SUITES;
  return options;
}

/** The Jest run in progress (its own process group, so that a stop reaches its workers too). */
let current;

/** Runs Jest once on `suites`; resolves with its exit code. */
function runJest(suites) {
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  return new Promise((resolveRun) => {
    const child = spawn(
      process.execPath,
      ['--experimental-vm-modules', jest, '--coverage=false', '--ci', ...suites],
      {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, SLOWEST_SUITES: process.env.SLOWEST_SUITES ?? '5' },
      },
    );
    child.once('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
  });
}

/** A child that keeps one core busy until it is stopped. */
function startBusyLoop() {
  const busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  const stop = () => {
    if (busy.exitCode === null && busy.signalCode === null) busy.kill('SIGKILL');
  };
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      stop();
      if (current?.pid !== undefined) {
        try {
          process.kill(-current.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      process.exit(1);
    });
  }
  return stop;
}

const options = parseArgs(process.argv.slice(2));
const stopBusy = options.busy ? startBusyLoop() : () => undefined;
const results = [];
for (let run = 1; run <= options.runs; run += 1) {
  process.stderr.write(
    `\n== test:stress run ${run}/${options.runs}${options.busy ? ' (one core kept busy)' : ''}\n`,
  );
  const started = Date.now();
  const code = await runJest(options.suites);
  results.push({ run, code, seconds: (Date.now() - started) / 1000 });
}
stopBusy();
process.stderr.write('\n== test:stress summary\n');
for (const { run, code, seconds } of results)
  process.stderr.write(
    `run ${run}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s\n`,
  );
const failed = results.filter((r) => r.code !== 0).length;
process.stderr.write(
  failed === 0 ? `all ${results.length} runs passed\n` : `${failed} of ${results.length} runs failed\n`,
);
process.exit(failed === 0 ? 0 : 1);
