import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { exitOf, requireBuilt, Resources } from '../support/processes.js';
import { SignedReceiver } from '../support/signed-receiver.js';
import { until } from '../support/until.js';

// The built sleeper as a real process over stdio (needs `npm run build`), driven the way a one-shot
// client (the Inspector CLI) drives it: initialize, one tools/call, then stdin closes at once.
// With RMK_STDIO_DRAIN_S the running task finishes and its events reach the app before the exit;
// the drain is bounded; without it (the default) quitting cancels the task (stdin-eof.test.ts).
const MAIN = fileURLToPath(new URL('../../examples/sleeper/dist/main.js', import.meta.url));
const SECRET = 'stdin-drain-secret-0123456789abcdef0';
const resources = new Resources();

beforeAll(() => requireBuilt(MAIN));
afterEach(() => resources.cleanup());

interface LogLine {
  message: string;
  [key: string]: unknown;
}

/** Starts the sleeper over stdio, calls sleep_task once, closes stdin as soon as the call answered. */
async function oneShot(env: Record<string, string>, durationS: number) {
  const receiver = new SignedReceiver(SECRET);
  const url = await receiver.start();
  resources.onCleanup(() => receiver.close());
  const child = resources.track(
    spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        RVC_CALLBACK_URL: url,
        RVC_EVENT_SECRET: SECRET,
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const logs = (): LogLine[] =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const messages = [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'one-shot', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'sleep_task', arguments: { duration_s: durationS } },
    },
  ];
  child.stdin!.write(messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
  await until(
    () => stdout.includes('"id":1') || child.exitCode !== null,
    () => `the tools/call answer; stdout ${stdout.slice(0, 300)}; stderr ${stderr.slice(0, 600)}`,
  );
  const closedAt = Date.now();
  child.stdin!.end();
  const code = await exitOf(child);
  return { code, afterMs: Date.now() - closedAt, logs: logs(), stderr, receiver };
}

describe('stdio: a one-shot client starts a task and quits', () => {
  it('with RMK_STDIO_DRAIN_S, the task runs to task_done and its events are delivered before the exit', async () => {
    const run = await oneShot({ RMK_STDIO_DRAIN_S: '60' }, 1);
    expect(run.code).toBe(0);
    const types = run.receiver.events.map((e) => e.type);
    expect(types.at(-1)).toBe('task_done');
    expect(run.receiver.received.every((r) => r.verified)).toBe(true);
    const messages = run.logs.map((l) => l.message);
    const draining = run.logs.find((l) => l.message.startsWith('stdin closed; letting running tasks finish'));
    expect(draining).toMatchObject({ running_tasks: 1, drain_s: 60 });
    expect(run.logs.find((l) => l.message === 'shutting down')).toMatchObject({ reason: 'stdin closed' });
    expect(run.logs.find((l) => l.message === 'server stopped')).toMatchObject({ cancelled_tasks: 0 });
    expect(messages.indexOf('server stopped')).toBeGreaterThan(messages.indexOf('shutting down'));
    // it did not wait out the drain: it stopped once the task was done
    expect(run.afterMs).toBeLessThan(30_000);
  }, 60_000);

  it('the drain is bounded: a task still running when it ends is cancelled and the server exits', async () => {
    const run = await oneShot({ RMK_STDIO_DRAIN_S: '1' }, 600);
    expect(run.code).toBe(0);
    expect(run.logs.find((l) => l.message === 'server stopped')).toMatchObject({ cancelled_tasks: 1 });
    expect(run.receiver.events.some((e) => e.type === 'task_done')).toBe(false);
    expect(run.afterMs).toBeGreaterThanOrEqual(900);
  }, 60_000);

  it('refuses a bad RMK_STDIO_DRAIN_S at start-up, naming it and the range', async () => {
    const child = resources.track(
      spawn(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH ?? '', RMK_STDIO_DRAIN_S: '2m' },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(stderr).toContain(
      'RMK_STDIO_DRAIN_S: "2m" is not valid; use a whole number of seconds from 0 to 3600 (default 0)',
    );
  }, 60_000);
});
