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

// Smoke tests of the built server (dist/main.js) as a child process: run "npm run build" first.
const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
const FAST = { NAV_SPEED_MPS: '50', NAV_TICK_MS: '20' };
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
});

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

const env = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  LOG_LEVEL: 'info',
  ...FAST,
  ...extra,
});

async function json(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
}

/** Drives to the lobby and polls get_task until the drive is over. */
async function drive(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('navigate_to');
  const started = await json(client, 'navigate_to', { goal: 'lobby' });
  let task = started;
  for (let i = 0; i < 200 && task.state === 'running'; i += 1) {
    await new Promise((r) => setTimeout(r, 25));
    task = await json(client, 'get_task', { task_id: started.task_id });
  }
  expect(task).toMatchObject({ state: 'succeeded', result: { arrived: true, goal: 'lobby', distance_m: 5 } });
  expect(await json(client, 'get_pose')).toMatchObject({ x: 5, y: 0, zone: 'lobby', moving: false });
}

async function startHttp(kind: 'sse' | 'streamable-http'): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: env({ MCP_TRANSPORT: kind, MCP_PORT: '0' }),
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
  return { child, url };
}

describe('the navigation example as a child process', () => {
  it('drives over stdio and exits when stdin closes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN],
      env: env({}),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    await drive(client);
    const pid = transport.pid!;
    await client.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(() => process.kill(pid, 0)).toThrow();
    expect(stderr).toContain('server stopped');
  });

  it('drives over SSE', async () => {
    const { url } = await startHttp('sse');
    const client = new Client({ name: 'sse-test', version: '1' });
    clients.push(client);
    await client.connect(new SSEClientTransport(new URL(url)));
    await drive(client);
  });

  it('drives over streamable HTTP', async () => {
    const { url } = await startHttp('streamable-http');
    const client = new Client({ name: 'http-test', version: '1' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await drive(client);
  });

  it('refuses a bad NAV_SPEED_MPS at start-up, naming the variable', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: env({ NAV_SPEED_MPS: 'fast' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(stderr).toContain('NAV_SPEED_MPS: "fast" is not valid');
  });
});
