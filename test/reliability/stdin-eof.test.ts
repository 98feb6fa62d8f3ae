import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { until } from '../support/until.js';

// The built sleeper as a real process over stdio (needs `npm run build`), the app's endpoint down.
// Closing stdin must run the same shutdown as SIGTERM: cancel, try to flush until the deadline, log
// what could not be delivered, "server stopped", exit 0 — not exit at once because every kit timer
// is unref'd.
const MAIN = fileURLToPath(new URL('../../examples/sleeper/dist/main.js', import.meta.url));
const SHUTDOWN_DEADLINE_MS = 10_000;
let child: ChildProcess | undefined;

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
});
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface LogLine {
  level: string;
  message: string;
  at: number;
  [key: string]: unknown;
}

describe('stdin closing with a task running and the receiver down', () => {
  it('cancels, tries to flush until the deadline, logs what was not delivered and "server stopped", exits 0', async () => {
    const port = await closedPort();
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        RVC_CALLBACK_URL: `http://127.0.0.1:${port}/api/agent/events`,
        RVC_EVENT_SECRET: 'stdin-eof-secret-0123456789abcdef0',
        LOG_LEVEL: 'info',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines: LogLine[] = [];
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const parts = stderr.split('\n');
      stderr = parts.pop() ?? '';
      for (const part of parts) {
        try {
          lines.push({ ...(JSON.parse(part) as LogLine), at: Date.now() });
        } catch {
          // not a log line
        }
      }
    });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child!.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    child.stdin!.write(
      [
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'eof', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'sleep_task', arguments: { duration_s: 60 } },
        },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    );
    const has = (message: string) => lines.some((l) => l.message.includes(message));
    await until(
      () => stdout.includes('"id":1') && has('event delivery failed'),
      () => `stdout ${stdout.slice(0, 300)}; log ${JSON.stringify(lines).slice(0, 600)}`,
    );
    const closedAt = Date.now();
    child.stdin!.end();
    const { code, at } = await exited;
    expect(code).toBe(0);
    const messages = lines.map((l) => l.message);
    const shutting = lines.find((l) => l.message === 'shutting down');
    expect(shutting?.reason).toBe('stdin closed');
    const flush = messages.findIndex((m) => /could not flush \d+ events/.test(m));
    const stopped = messages.indexOf('server stopped');
    expect(flush).toBeGreaterThan(messages.indexOf('shutting down'));
    expect(stopped).toBeGreaterThan(flush);
    expect(lines[stopped]).toMatchObject({ cancelled_tasks: 1 });
    // The flush was attempted until the deadline, not skipped by an early exit (load only makes
    // this longer), and the process did not hang past it: the bound is taken from the child's own
    // "shutting down" line, generous for a loaded 2-core machine, far below "never exits".
    expect(at - closedAt).toBeGreaterThanOrEqual(SHUTDOWN_DEADLINE_MS - 2_000);
    expect(at - shutting!.at).toBeLessThan(SHUTDOWN_DEADLINE_MS + 10_000);
  }, 60_000);
});
