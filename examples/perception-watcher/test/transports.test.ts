import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseTaskEvent, type TaskEvent, verify } from '@robot-mcp-kit/core';

// Smoke tests of the built server (dist/main.js) as a child process: run "npm run build" first.
const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
const SECRET = 'watcher-smoke-secret';
const children: ChildProcess[] = [];
const clients: Client[] = [];
let receiver: Server | undefined;

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
});

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  receiver?.closeAllConnections();
  await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  receiver = undefined;
});

const env = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  LOG_LEVEL: 'info',
  WATCHER_RATE_HZ: '100',
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

/** A local events endpoint that verifies every signature. */
async function startReceiver(received: { event: TaskEvent; verified: boolean }[]): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verified = verify(
        SECRET,
        String(req.headers['x-rvc-timestamp']),
        body,
        String(req.headers['x-rvc-signature']),
      );
      received.push({ event: parseTaskEvent(body), verified });
      res.writeHead(verified ? 200 : 401).end();
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/agent/events`;
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !predicate(); i += 1) await new Promise((r) => setTimeout(r, 25));
  expect(predicate()).toBe(true);
}

async function startHttp(kind: 'sse' | 'streamable-http'): Promise<string> {
  const child = spawn(process.execPath, [MAIN], {
    env: env({ MCP_TRANSPORT: kind, MCP_PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  return new Promise<string>((resolveUrl, reject) => {
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
}

/** Starts a watcher, waits until get_task shows it running, cancels it. */
async function watchAndCancel(client: Client): Promise<void> {
  expect(await json(client, 'list_labels')).toMatchObject({
    labels: expect.arrayContaining(['person', 'cup']),
    rate_hz: 100,
  });
  const started = await json(client, 'watch_for', { label: 'person' });
  expect(await json(client, 'get_task', { task_id: started.task_id })).toMatchObject({ state: 'running' });
  expect(await json(client, 'cancel_task', { task_id: started.task_id })).toEqual({
    task_id: started.task_id,
    state: 'cancelled',
  });
}

describe('the perception watcher as a child process', () => {
  it('over stdio: pushes signed watch events until cancelled, then nothing more', async () => {
    const received: { event: TaskEvent; verified: boolean }[] = [];
    const url = await startReceiver(received);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN],
      env: env({ RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: SECRET }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    const started = await json(client, 'watch_for', { label: 'person', min_confidence: 0.3 });
    await until(() => received.length >= 5);
    expect(await json(client, 'cancel_task', { task_id: started.task_id })).toMatchObject({
      state: 'cancelled',
    });
    const count = received.length;
    await client.close(); // closes stdin: the server flushes its queue and exits
    expect(received.length).toBeGreaterThanOrEqual(count);
    expect(received.every((r) => r.verified)).toBe(true);
    expect(received.every((r) => r.event.type === 'watch_event' && r.event.task_id === started.task_id)).toBe(
      true,
    );
    expect(received.map((r) => r.event.seq)).toEqual(received.map((_, i) => i + 1));
    expect(received[0]!.event.payload).toMatchObject({ label: 'person', frame: expect.any(Number) });
  });

  it('over SSE', async () => {
    const client = new Client({ name: 'sse-test', version: '1' });
    clients.push(client);
    await client.connect(new SSEClientTransport(new URL(await startHttp('sse'))));
    await watchAndCancel(client);
  });

  it('over streamable HTTP', async () => {
    const client = new Client({ name: 'http-test', version: '1' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(await startHttp('streamable-http'))));
    await watchAndCancel(client);
  });
});
