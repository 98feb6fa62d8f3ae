import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  callJson as json,
  ChildServers,
  exitOf,
  waitUntilTaskOver,
} from '../../../test/support/child-server.js';

// Smoke tests of the built server (dist/main.js) as a child process: run "npm run build" first.
const servers = new ChildServers(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js'), {
  NAV_SPEED_MPS: '50',
  NAV_TICK_MS: '20',
});

beforeAll(() => servers.assertBuilt());
afterEach(() => servers.cleanup());

/** Drives to the lobby and polls get_task until the drive is over. */
async function drive(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('navigate_to');
  const started = await json(client, 'navigate_to', { goal: 'lobby' });
  const task = await waitUntilTaskOver(client, started.task_id);
  expect(task).toMatchObject({ state: 'succeeded', result: { arrived: true, goal: 'lobby', distance_m: 5 } });
  expect(await json(client, 'get_pose')).toMatchObject({ x: 5, y: 0, zone: 'lobby', moving: false });
}

describe('the navigation example as a child process', () => {
  it('drives over stdio and exits when stdin closes', async () => {
    const { client, stderr, closeAndWait } = await servers.connectStdio();
    await drive(client);
    expect(await closeAndWait()).toBe(true);
    expect(stderr()).toContain('server stopped');
  });

  it('drives over SSE', async () => {
    const { url } = await servers.startHttp('sse');
    const client = servers.track(new Client({ name: 'sse-test', version: '1' }));
    await client.connect(new SSEClientTransport(new URL(url)));
    await drive(client);
  });

  it('drives over streamable HTTP', async () => {
    const { url } = await servers.startHttp('streamable-http');
    const client = servers.track(new Client({ name: 'http-test', version: '1' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await drive(client);
  });

  it('refuses a bad NAV_SPEED_MPS at start-up, naming the variable', async () => {
    const { child, stderr } = servers.spawn({ NAV_SPEED_MPS: 'fast' });
    const code = await exitOf(child);
    expect(code).toBe(1);
    expect(stderr()).toContain('NAV_SPEED_MPS: "fast" is not valid');
  });
});
