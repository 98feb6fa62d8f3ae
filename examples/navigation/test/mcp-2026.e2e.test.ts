import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callJson, ChildServers, waitUntilTaskOver } from '../../../test/support/child-server.js';
import { WireClient } from '../../../test/support/mcp-2026.wire-client.js';
import { until } from '../../../test/support/until.js';

// The acceptance run on the built navigation server (dist/main.js; `npm run build` first):
// MCP 2026-07-28 clients with and without the tasks extension (SEP-2663, spoken on the wire by a
// client written from the SEP), and a 2025-11-25 SDK client, on one streamable-HTTP listener.
const servers = new ChildServers(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js'), {
  NAV_SPEED_MPS: '2',
  NAV_TICK_MS: '20',
});

beforeAll(() => servers.assertBuilt());
afterEach(() => servers.cleanup());

type Json = Record<string, unknown>;
const pose = async (client: WireClient): Promise<Json> =>
  (await client.result('tools/call', { name: 'get_pose', arguments: {} })).structuredContent as Json;

async function pollUntil(client: WireClient, taskId: string, status: string): Promise<Json> {
  let polled: Json = {};
  await until(async () => {
    polled = await client.result('tasks/get', { taskId });
    return polled.status === status;
  }, 30_000);
  return polled;
}

describe('navigation over MCP 2026-07-28 and 2025-11-25 on one listener', () => {
  it('a client with the tasks extension drives to the lobby as a task, polled to its inlined result', async () => {
    const { url } = await servers.startHttp('streamable-http');
    const modern = new WireClient(url, true);
    const created = await modern.result('tools/call', { name: 'navigate_to', arguments: { goal: 'lobby' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.ttlMs).toEqual(expect.any(Number));
    expect(created.pollIntervalMs).toEqual(expect.any(Number));
    const done = await pollUntil(modern, created.taskId as string, 'completed');
    expect(done.result).toMatchObject({
      structuredContent: { arrived: true, goal: 'lobby', distance_m: 5 },
    });
    expect(await pose(modern)).toMatchObject({ x: 5, y: 0, zone: 'lobby', moving: false });
  });

  it('tasks/cancel stops the robot: the task ends cancelled and the pose stops changing', async () => {
    const { url } = await servers.startHttp('streamable-http');
    const modern = new WireClient(url, true);
    const created = await modern.result('tools/call', { name: 'navigate_to', arguments: { goal: 'lab' } });
    const taskId = created.taskId as string;
    await until(async () => ((await pose(modern)).x as number) > 0.5, 30_000);
    expect(await modern.result('tasks/cancel', { taskId })).toBeDefined();
    await pollUntil(modern, taskId, 'cancelled');
    await until(async () => (await pose(modern)).moving === false, 30_000);
    const stopped = await pose(modern);
    // Sampled over further round trips (each longer than a 20 ms tick): the robot stays where it is.
    for (let i = 0; i < 5; i += 1) {
      const seen = await pose(modern);
      await pollUntil(modern, taskId, 'cancelled');
      expect(seen).toMatchObject({ x: stopped.x, y: stopped.y, moving: false });
    }
    expect(stopped.x as number).toBeLessThan(31);
  });

  it('a 2026 client without the extension gets the task_id result; a 2025 client sees no change', async () => {
    const { url } = await servers.startHttp('streamable-http');
    const plain = new WireClient(url, false);
    const started = await plain.result('tools/call', { name: 'navigate_to', arguments: { goal: 'lobby' } });
    expect(started.resultType).not.toBe('task');
    const info = started.structuredContent as Json;
    expect(info).toMatchObject({ state: 'running', tool: 'navigate_to' });

    const legacy = servers.track(new Client({ name: 'mcp-2025', version: '1' }));
    await legacy.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(legacy.getServerVersion()?.name).toBe('navigation');
    // One task: the 2025 client reconciles the task the 2026 client started.
    const task = await waitUntilTaskOver(legacy, info.task_id as string);
    expect(task).toMatchObject({ state: 'succeeded', result: { arrived: true, goal: 'lobby' } });
    const again = await callJson(legacy, 'navigate_to', { goal: 'dock' });
    expect(await waitUntilTaskOver(legacy, again.task_id as string)).toMatchObject({ state: 'succeeded' });
  });
});
