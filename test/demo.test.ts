import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// Runs `node scripts/demo.mjs --ci` as a child process. It needs the build (`npm run build`):
// without it the demo exits 1 saying so, and these tests fail with that message.
const root = fileURLToPath(new URL('..', import.meta.url));

function runDemo(
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'scripts/demo.mjs'), '--ci'],
      { cwd: root, env: { ...process.env, ...env }, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('npm run demo (scripts/demo.mjs --ci)', () => {
  it('drives the navigation example end to end and exits 0', async () => {
    const { code, stdout, stderr } = await runDemo();
    const output = `${stdout}\n${stderr}`;
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('✔ demo finished') });
    expect(stdout).toMatch(/started examples\/navigation over stdio .*tools: navigate_to/);
    expect(stdout).toMatch(/⚡ trigger_fired eta_below .*✔ signature verified/);
    expect(stdout).toMatch(/⚡ trigger_fired zone_entered \{"zone":"kitchen"\} .*✔ signature verified/);
    expect(stdout).toMatch(/✅ task_done: arrived at kitchen \(20, 6\), 26 m .*✔ signature verified/);
    expect(stdout).toMatch(/\[█+░*\] +\d+% {2}eta .*✔ signed/);
    expect(stdout).toMatch(/get_task \S+ → state succeeded/);
    expect(stdout).toMatch(/cancel_task (\S+) → \{"task_id":"\1","state":"cancelled"\}/);
    expect(stdout).toContain('no terminal event for');
    expect(stdout).toContain('the server stopped cleanly');
    const [, events, signatures] = /✔ demo finished: (\d+) events .*, (\d+) signatures verified/.exec(
      stdout,
    )!;
    expect(Number(events)).toBeGreaterThan(10);
    expect(signatures).toBe(events);
    expect(stdout.indexOf('trigger_fired eta_below')).toBeLessThan(stdout.indexOf('task_done'));
  });

  it('exits 1 when a signature does not verify', async () => {
    const { code, stdout } = await runDemo({ DEMO_RECEIVER_SECRET: 'not-the-server-secret' });
    expect(code).toBe(1);
    expect(stdout).toContain('✘ demo failed');
    expect(stdout).toContain('an event failed verification: bad signature');
  });
});
