import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

/**
 * Every live Node LTS (22 and 24) and the machine's Node 20.19+ (end of life in April 2026, still
 * what CI's main run uses): the packages' `engines` admit all three lines, alike; the binaries CI
 * runs the LTS lines with are installed and are those lines, and `.ci/run` runs the examples' and the
 * demo's end-to-end suites on each.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/test-node-lts.mjs');

interface NodeLine {
  readonly major: number;
  readonly dependency: string;
}
const script = (await import(SCRIPT)) as {
  NODE_LTS: readonly NodeLine[];
  nodeBinary(line: NodeLine): { binary: string; version: string };
};

function engines(path: string): string | undefined {
  return (JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { engines?: { node?: string } }).engines
    ?.node;
}

/** Whether `version` (x.y.z) satisfies a `>=x.y[.z]` range, the only form the packages use. */
function admits(range: string, version: string): boolean {
  const match = /^>=(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range);
  if (!match) throw new Error(`engines "${range}" is not of the form >=x.y`);
  const wanted = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  const have = version.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if (have[i] !== wanted[i]) return have[i]! > wanted[i]!;
  return true;
}

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('every live Node LTS', () => {
  const packages = [
    'package.json',
    ...readdirSync(join(ROOT, 'packages')).map((name) => `packages/${name}/package.json`),
  ];

  it('engines (root and every package) admit Node 20.19, 22 and 24, and nothing older', () => {
    expect(script.NODE_LTS.map((line) => line.major)).toEqual([22, 24]);
    for (const path of packages) {
      const range = engines(path);
      expect({ path, range }).toEqual({ path, range: engines('package.json') });
      const verdict = (version: string) => ({ path, version, admitted: admits(range ?? '', version) });
      expect(verdict('20.18.3')).toMatchObject({ admitted: false });
      expect(verdict('20.19.0')).toMatchObject({ admitted: true });
      expect(verdict('22.12.0')).toMatchObject({ admitted: true });
      expect(verdict('24.0.0')).toMatchObject({ admitted: true });
    }
  });

  it('has the binary of each line installed, of that line, and within the engines', () => {
    for (const line of script.NODE_LTS) {
      const { version } = script.nodeBinary(line);
      expect(version).toMatch(new RegExp(`^v${line.major}\\.`));
      expect(admits(engines('package.json') ?? '', version.slice(1))).toBe(true);
    }
  });

  it('CI runs the end-to-end suites of the examples and the demo on each line', async () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    const steps = ci.split('\n').filter((line) => line.startsWith('step '));
    const lts = steps.indexOf('step node scripts/test-node-lts.mjs');
    expect(lts).toBeGreaterThan(steps.indexOf('step npm test'));
    const listed = await run([SCRIPT, '--list']);
    expect(listed.code).toBe(0);
    const suites = listed.stdout
      .split('\n')
      .filter((line) => line.startsWith('suite: '))
      .map((line) => line.slice('suite: '.length));
    const e2e = readdirSync(join(ROOT, 'examples')).flatMap((example) => {
      const dir = join(ROOT, 'examples', example, 'test');
      const files = (() => {
        try {
          return readdirSync(dir);
        } catch {
          return [];
        }
      })();
      return files.filter((f) => f.endsWith('.e2e.test.ts')).map((f) => `examples/${example}/test/${f}`);
    });
    expect(e2e.length).toBeGreaterThan(0);
    expect(suites.sort()).toEqual([...e2e, 'test/demo.test.ts'].sort());
    for (const major of [22, 24])
      expect(listed.stdout).toMatch(new RegExp(`^node ${major}: v${major}\\.`, 'm'));
    const refused = await run([SCRIPT, '--node', '20', '--list']);
    expect({ code: refused.code, stderr: refused.stderr.trim() }).toEqual({
      code: 1,
      stderr: 'test-node-lts: --node must be one of 22, 24 (got 20)',
    });
  });
});
