import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callJson as json, ChildServers } from '../../../test/support/child-server.js';
import { SignedReceiver, waitFor } from '../../../test/support/signed-receiver.js';

// Smoke tests of the built server (dist/main.js) as a child process: run "npm run build" first.
const servers = new ChildServers(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js'), {
  WATCHER_RATE_HZ: '100',
});
const receiver = new SignedReceiver('watcher-smoke-secret-0123456789ab');

beforeAll(() => servers.assertBuilt());
afterEach(async () => {
  await servers.cleanup();
  await receiver.close();
  receiver.received.length = 0;
});

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
    const url = await receiver.start();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [servers.main],
      env: servers.env({ RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: receiver.secret }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    const started = await json(client, 'watch_for', { label: 'person', min_confidence: 0.3 });
    await waitFor(() => receiver.received.length >= 5);
    expect(await json(client, 'cancel_task', { task_id: started.task_id })).toMatchObject({
      state: 'cancelled',
    });
    const count = receiver.received.length;
    await client.close(); // closes stdin: the server flushes its queue and exits
    const received = receiver.received;
    expect(received.length).toBeGreaterThanOrEqual(count);
    expect(received.every((r) => r.verified)).toBe(true);
    expect(received.every((r) => r.event.type === 'watch_event' && r.event.task_id === started.task_id)).toBe(
      true,
    );
    expect(received.map((r) => r.event.seq)).toEqual(received.map((_, i) => i + 1));
    expect(received[0]!.event.payload).toMatchObject({ label: 'person', frame: expect.any(Number) });
  });

  it('over SSE', async () => {
    const { url } = await servers.startHttp('sse');
    const client = servers.track(new Client({ name: 'sse-test', version: '1' }));
    await client.connect(new SSEClientTransport(new URL(url)));
    await watchAndCancel(client);
  });

  it('over streamable HTTP', async () => {
    const { url } = await servers.startHttp('streamable-http');
    const client = servers.track(new Client({ name: 'http-test', version: '1' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await watchAndCancel(client);
  });
});
