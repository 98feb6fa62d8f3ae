import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const here = dirname(fileURLToPath(import.meta.url));
const MAIN = resolve(here, '../dist/main.js');
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
});

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function baseEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...extra };
}

/** Starts the sleeper over HTTP on a free port and resolves with its URL from the log. */
async function startHttp(
  kind: 'sse' | 'streamable-http',
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: baseEnv({ MCP_TRANSPORT: kind, MCP_PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line in: ${log}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /"url":"(http:[^"]+)"/.exec(log);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${log}`)));
  });
  return { child, url, stderr: () => log };
}

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([
    'cancel_task',
    'get_events',
    'get_task',
    'list_tasks',
    'sleep_task',
    'wait_for_event',
  ]);
  const started = (await client.callTool({
    name: 'sleep_task',
    arguments: { duration_s: 0.3 },
  })) as CallToolResult;
  const taskId = (started.structuredContent as { task_id: string }).task_id;
  let state = 'running';
  for (let i = 0; i < 100 && state === 'running'; i += 1) {
    await new Promise((r) => setTimeout(r, 50));
    const got = (await client.callTool({
      name: 'get_task',
      arguments: { task_id: taskId },
    })) as CallToolResult;
    state = (JSON.parse((got.content[0] as { text: string }).text) as { state: string }).state;
  }
  expect(state).toBe('succeeded');
}

const exitOf = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));

describe('the sleeper as a child process', () => {
  it('serves over stdio, keeps stdout for protocol messages, and exits 0 when stdin closes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN],
      env: baseEnv({}),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    await exercise(client);
    const pid = transport.pid!;
    await client.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(() => process.kill(pid, 0)).toThrow();
    expect(stderr).toContain('MCP server on stdio');
  });

  it('serves over SSE (GET /sse, POST /messages)', async () => {
    const { url } = await startHttp('sse');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
    const client = new Client({ name: 'sse-test', version: '1' });
    clients.push(client);
    await client.connect(new SSEClientTransport(new URL(url)));
    await exercise(client);
  });

  it('serves over streamable HTTP (/mcp) and shuts down on SIGTERM: cancels tasks, exits 0', async () => {
    const { child, url, stderr } = await startHttp('streamable-http');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'http-test', version: '1' });
    clients.push(client);
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    await exercise(client);
    await client.callTool({ name: 'sleep_task', arguments: { duration_s: 60 } });
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
    expect(stderr()).toContain('"cancelled_tasks":1');
  });

  it('fails fast with a clear message on bad configuration', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: baseEnv({ RVC_CALLBACK_URL: 'http://127.0.0.1:9/events' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(stderr).toContain('RVC_EVENT_SECRET');
  });
});
