import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callJson, ChildServers, exitOf } from '../support/child-server.js';
import { SignedReceiver, waitFor } from '../support/signed-receiver.js';

// The built sleeper as a real process (needs `npm run build`), over SSE, pushing signed events to
// a real receiver on 127.0.0.1.
const MAIN = fileURLToPath(new URL('../../examples/sleeper/dist/main.js', import.meta.url));
const SECRET = 'one-shot-secret-0123456789abcdef01';
const servers = new ChildServers(MAIN);
let receiver: SignedReceiver | undefined;

beforeAll(() => servers.assertBuilt());
afterEach(async () => {
  await servers.cleanup();
  await receiver?.close();
  receiver = undefined;
});

async function oneShot<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'one-shot', version: '1' });
  await client.connect(new SSEClientTransport(new URL(url)));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('tasks outlive the session that started them (sleeper over SSE)', () => {
  it('a one-shot client starts sleep_task and disconnects; the task runs to task_done, every event signed', async () => {
    receiver = new SignedReceiver(SECRET);
    const callback = await receiver.start();
    const { url, stderr } = await servers.startHttp('sse', {
      RVC_CALLBACK_URL: callback,
      RVC_EVENT_SECRET: SECRET,
    });
    const taskId = await oneShot(url, async (client) => {
      const result = (await client.callTool({
        name: 'sleep_task',
        arguments: { duration_s: 2 },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      return (result.structuredContent as { task_id: string }).task_id;
    });
    // the session is gone; the work goes on and its events reach the app
    await waitFor(() => receiver!.events.some((e) => e.type === 'task_done'), 20_000);
    const events = receiver.events.filter((e) => e.task_id === taskId);
    expect(events.map((e) => e.type)).toEqual(['progress', 'progress', 'task_done']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(events.at(-1)?.payload).toMatchObject({ result: { slept_s: 2 } });
    // poll is the truth: a new connection sees it succeeded
    const info = await oneShot(url, (client) => callJson(client, 'get_task', { task_id: taskId }));
    expect(info).toMatchObject({ task_id: taskId, state: 'succeeded', result: { slept_s: 2 } });
    expect(stderr()).not.toMatch(/cancelled its cancelOnDisconnect tasks/);
  });
});

describe('MCP_HOST=0.0.0.0 without authentication', () => {
  it('refuses to start: exit 1 with the fix on stderr', async () => {
    const { child, stderr } = servers.spawn(
      { MCP_TRANSPORT: 'streamable-http', MCP_HOST: '0.0.0.0', MCP_PORT: '0' },
      'ignore',
    );
    expect(await exitOf(child)).toBe(1);
    expect(stderr()).toMatch(
      /cannot start SleeperServer: CONFIG_INVALID: MCP_HOST: "0\.0\.0\.0" is reachable from the network and no authentication is configured/,
    );
    expect(stderr()).toMatch(/RMK_AUTH_TOKEN/);
  });

  it('starts with RMK_AUTH_TOKEN, and a client with the token works', async () => {
    const token = 'b7e2c4d6f8a0b1c3d5e7f9a1b2c3d4e5';
    const { url } = await servers.startHttp('streamable-http', {
      MCP_HOST: '0.0.0.0',
      RMK_AUTH_TOKEN: token,
    });
    const local = url.replace('0.0.0.0', '127.0.0.1');
    const denied = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(denied.status).toBe(401);
    const client = servers.track(new Client({ name: 'token', version: '1' }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(local), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('sleep_task');
  });
});
