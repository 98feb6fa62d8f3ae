import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort, listeningUrl, reap } from '../support/processes.js';
import { figure } from './helpers/drive.js';

// The built sleeper as a real process (needs `npm run build`): 1,000 running tasks, the app's
// endpoint down (connections refused), then SIGTERM. It must exit 0 within its 10 s shutdown
// deadline (plus a margin for the process itself), cancel every task and log what it could not
// flush.
const MAIN = fileURLToPath(new URL('../../examples/sleeper/dist/main.js', import.meta.url));
const TASKS = 1000;
const SHUTDOWN_DEADLINE_MS = 10_000;
const MARGIN_MS = 10_000; // a loaded 2-core machine (CI keeps a core busy) delays the exit itself, not the flush
let child: ChildProcess | undefined;
let client: Client | undefined;

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
});
afterAll(async () => {
  await client?.close().catch(() => undefined);
  if (child) await reap(child);
});

/** A port the OS just handed out and nothing listens on any more: connections are refused. */
const closedPort = freePort;

interface LogLine {
  level: string;
  message: string;
  [key: string]: unknown;
}

function parseLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
}

describe('SIGTERM with 1,000 running tasks and the receiver down', () => {
  it('exits 0 within its deadline, cancels the tasks and logs what it could not flush', async () => {
    const port = await closedPort();
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        MCP_TRANSPORT: 'streamable-http',
        MCP_PORT: '0',
        RVC_CALLBACK_URL: `http://127.0.0.1:${port}/api/agent/events`,
        RVC_EVENT_SECRET: 'sigterm-secret-0123456789abcdef0123',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
      child!.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    const url = await listeningUrl({
      stderr: () => stderr,
      exited: () => (child!.exitCode !== null ? `exited ${String(child!.exitCode)}: ${stderr}` : undefined),
    });

    client = new Client({ name: 'sigterm-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    // 50 calls in flight at a time, each worker starting its next call as soon as one answers: no
    // connection sits idle between batches (an idle keep-alive socket that the server closes just as
    // a loaded client reuses it fails with "other side closed").
    const ids: string[] = [];
    let inFlight = 0;
    const worker = async (): Promise<void> => {
      while (ids.length + inFlight < TASKS) {
        inFlight += 1;
        try {
          const r = (await client!.callTool({
            name: 'sleep_task',
            arguments: { duration_s: 3600 },
          })) as CallToolResult;
          ids.push((r.structuredContent as { task_id: string }).task_id);
        } finally {
          inFlight -= 1;
        }
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    expect(new Set(ids).size).toBe(TASKS);
    const listed = (await client.callTool({
      name: 'list_tasks',
      arguments: { states: ['running'] },
    })) as CallToolResult;
    const running = (JSON.parse((listed.content[0] as { text: string }).text) as { tasks: unknown[] }).tasks;
    expect(running).toHaveLength(TASKS);

    const sentAt = Date.now();
    child.kill('SIGTERM');
    const { code, signal, at } = await exited;
    const tookMs = at - sentAt;
    const lines = parseLines(stderr);
    const stopped = lines.find((l) => l.message === 'server stopped');
    const couldNot = lines.find((l) => /^could not flush \d+ events$/.test(l.message));
    figure('sigterm 1000 tasks', {
      exit_code: code,
      took_ms: tookMs,
      cancelled_tasks: stopped?.cancelled_tasks,
      unflushed: stopped?.unflushed,
      delivered: stopped?.delivered,
      dropped: stopped?.dropped,
    });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(SHUTDOWN_DEADLINE_MS + MARGIN_MS);
    expect(lines.some((l) => l.message === 'shutting down' && l.reason === 'SIGTERM')).toBe(true);
    expect(stopped).toMatchObject({ level: 'info', cancelled_tasks: TASKS, delivered: 0 });
    expect(couldNot).toMatchObject({ level: 'error', unflushed: stopped!.unflushed });
    expect(stopped!.unflushed as number).toBeGreaterThan(0);
    expect(couldNot!.message).toBe(`could not flush ${String(stopped!.unflushed)} events`);
  }, 60_000);
});
