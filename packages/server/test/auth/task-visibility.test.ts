import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { RoverServer } from '../fixtures/rover.server.js';
import { textOf, WireClient } from '../../../../test/support/mcp-2026.wire-client.js';

const TOKENS: Record<string, string> = {
  'alice-token-0123456789': 'alice',
  'bob-token-0123456789ab': 'bob',
};
const verifier: OAuthTokenVerifier = {
  verifyAccessToken(token) {
    const clientId = TOKENS[token];
    if (!clientId) return Promise.reject(new InvalidTokenError('unknown token'));
    return Promise.resolve({ token, clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 600 });
  },
};

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(): Promise<{ app: RobotMcpApp; url: string }> {
  const app = bootstrap(RoverServer, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    auth: { verifier },
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  const info = await app.listen();
  return { app, url: info.url! };
}

/** A 2025 session of the official SDK client, sending `token`. */
async function session(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'task-visibility', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  cleanups.push(() => client.close());
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<unknown> {
  return ((await client.callTool({ name, arguments: args })) as CallToolResult).structuredContent;
}

/** The text of a resources/read answer's first content. */
function textContent(read: { contents: ({ text: string } | { blob: string })[] }): string {
  const [first] = read.contents;
  if (!first || !('text' in first)) throw new Error(`no text content: ${JSON.stringify(read)}`);
  return first.text;
}

async function modernTool(client: WireClient, name: string, args: Record<string, unknown>): Promise<unknown> {
  return JSON.parse(textOf(await client.result('tools/call', { name, arguments: args }))) as unknown;
}

describe('who may see, list and cancel a task: one rule on every surface of one server', () => {
  it("another principal finds none of alice's tasks through get_task, list_tasks, cancel_task or tasks:// on either leg", async () => {
    const { app, url } = await serve();
    const alice = await session(url, 'alice-token-0123456789');
    const bob = await session(url, 'bob-token-0123456789ab');
    const modernAlice = new WireClient(url, false, { authorization: 'Bearer alice-token-0123456789' });
    const modernBob = new WireClient(url, false, { authorization: 'Bearer bob-token-0123456789ab' });
    const { task_id: taskId } = (await tool(alice, 'drive', { distance_m: 1 })) as { task_id: string };
    const uri = `tasks://${taskId}`;

    // bob, 2025 session
    expect(await tool(bob, 'get_task', { task_id: taskId })).toEqual({ error: 'not_found' });
    expect(await tool(bob, 'list_tasks', {})).toEqual({ tasks: [] });
    expect(await tool(bob, 'cancel_task', { task_id: taskId })).toEqual({ error: 'not_found' });
    await expect(bob.readResource({ uri })).rejects.toThrow(/not found/);
    const bobRunning = await bob.readResource({ uri: 'tasks://running' });
    expect(JSON.parse(textContent(bobRunning))).toEqual({ tasks: [] });
    expect((await bob.listResources()).resources.map((r) => r.uri)).toEqual(['tasks://running']);
    // bob, 2026-07-28 requests
    expect(await modernTool(modernBob, 'get_task', { task_id: taskId })).toEqual({ error: 'not_found' });
    expect(await modernTool(modernBob, 'list_tasks', {})).toEqual({ tasks: [] });
    expect(await modernTool(modernBob, 'cancel_task', { task_id: taskId })).toEqual({ error: 'not_found' });
    expect((await modernBob.request('resources/read', { uri })).error?.message).toMatch(/not found/);
    const modernList = await modernBob.result('resources/list');
    expect((modernList.resources as { uri: string }[]).map((r) => r.uri)).toEqual(['tasks://running']);
    expect(app.taskManager.get(taskId)?.state).toBe('running');

    // alice sees it everywhere, and cancels it
    expect(await tool(alice, 'list_tasks', {})).toMatchObject({ tasks: [{ task_id: taskId }] });
    expect(JSON.parse(textContent(await alice.readResource({ uri })))).toMatchObject({
      task_id: taskId,
      state: 'running',
    });
    expect(await modernTool(modernAlice, 'get_task', { task_id: taskId })).toMatchObject({
      task_id: taskId,
      state: 'running',
    });
    const read = await modernAlice.result('resources/read', { uri });
    expect(JSON.parse((read.contents as { text: string }[])[0]!.text)).toMatchObject({ task_id: taskId });
    expect(await modernTool(modernAlice, 'cancel_task', { task_id: taskId })).toMatchObject({
      task_id: taskId,
      state: 'cancelled',
    });
    expect(await tool(bob, 'get_task', { task_id: taskId })).toEqual({ error: 'not_found' });
  });

  it("another principal reads none of alice's feed entries through get_events or wait_for_event, on either leg", async () => {
    const { app, url } = await serve();
    const alice = await session(url, 'alice-token-0123456789');
    const bob = await session(url, 'bob-token-0123456789ab');
    const modernBob = new WireClient(url, false, { authorization: 'Bearer bob-token-0123456789ab' });
    const { task_id: taskId } = (await tool(alice, 'drive', { distance_m: 1 })) as { task_id: string };
    const rover = app.instance as RoverServer;
    const deadline = Date.now() + 20_000;
    while (rover.gates.length === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    rover.gates.shift()?.();
    // alice reads her task's progress entry (waiting for it, not sleeping)
    const mine = (await tool(alice, 'wait_for_event', { task_id: taskId, type: 'progress', since: 0 })) as {
      entry?: { kind: string; event: { task_id: string } };
    };
    expect(mine.entry).toMatchObject({ kind: 'event', event: { task_id: taskId, type: 'progress' } });
    const alicePage = (await tool(alice, 'get_events', {})) as { entries: unknown[] };
    expect(alicePage.entries.length).toBeGreaterThan(0);

    const bobPage = (await tool(bob, 'get_events', {})) as { entries: unknown[]; cursor: number };
    expect(bobPage.entries).toEqual([]);
    expect(bobPage.cursor).toBeGreaterThan(0); // the cursor moves past what bob may not see
    const bobWaitTask = (await bob.callTool({
      name: 'wait_for_event',
      arguments: { task_id: taskId, timeout_s: 0 },
    })) as CallToolResult;
    expect(bobWaitTask.isError).toBe(true);
    expect(JSON.stringify(bobWaitTask.content)).toMatch(/task_id: no task/);
    expect(await tool(bob, 'wait_for_event', { type: 'progress', since: 0, timeout_s: 0 })).toEqual({
      timeout: true,
      cursor: 0,
    });
    // bob, 2026-07-28 requests
    expect(await modernTool(modernBob, 'get_events', {})).toMatchObject({ entries: [] });
    expect(
      await modernTool(modernBob, 'wait_for_event', { type: 'progress', since: 0, timeout_s: 0 }),
    ).toEqual({
      timeout: true,
      cursor: 0,
    });
    expect(app.taskManager.get(taskId)?.state).toBe('running');
  });
});
