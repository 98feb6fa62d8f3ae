import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ChildServers, exitOf, waitUntilTaskOver } from '../../../test/support/child-server.js';

const servers = new ChildServers(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js'));

beforeAll(() => servers.assertBuilt());
afterEach(() => servers.cleanup());

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
  expect((await waitUntilTaskOver(client, taskId)).state).toBe('succeeded');
}

describe('the sleeper as a child process', () => {
  it('serves over stdio, keeps stdout for protocol messages, and exits 0 when stdin closes', async () => {
    const { client, stderr, closeAndWait } = await servers.connectStdio();
    await exercise(client);
    expect(await closeAndWait()).toBe(true);
    expect(stderr()).toContain('MCP server on stdio');
    expect(stderr()).toContain('server stopped');
  });

  it('serves over SSE (GET /sse, POST /messages)', async () => {
    const { url } = await servers.startHttp('sse');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
    const client = servers.track(new Client({ name: 'sse-test', version: '1' }));
    await client.connect(new SSEClientTransport(new URL(url)));
    await exercise(client);
  });

  it('serves over streamable HTTP (/mcp) and shuts down on SIGTERM: cancels tasks, exits 0', async () => {
    const { child, url, stderr } = await servers.startHttp('streamable-http');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = servers.track(new Client({ name: 'http-test', version: '1' }));
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
    const { child, stderr } = servers.spawn({ RVC_CALLBACK_URL: 'http://127.0.0.1:9/events' });
    expect(await exitOf(child)).toBe(1);
    expect(stderr()).toContain('RVC_EVENT_SECRET');
  });
});
