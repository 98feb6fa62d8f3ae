import { afterEach, describe, expect, it } from '@jest/globals';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { builtinFeatures } from '@robot-mcp-kit/server/advanced';
import { until } from '../fixtures/harness.js';
import { RoverServer } from '../fixtures/rover.server.js';
import { TASKS, textOf, VERSION, WireClient } from '../../../../test/support/mcp-2026.wire-client.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(
  features = builtinFeatures(),
): Promise<{ app: RobotMcpApp; url: string; rover: RoverServer }> {
  const app = bootstrap(RoverServer, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
    features,
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return { app, url: info.url!, rover: app.instance as RoverServer };
}

async function step(rover: RoverServer, steps: number): Promise<void> {
  for (let i = 0; i < steps; i += 1) {
    await until(() => rover.gates.length > 0, 20_000);
    rover.gates.shift()?.();
  }
}

describe('SEP-2663 tasks extension on the MCP 2026-07-28 leg', () => {
  it('advertises the extension in server/discover', async () => {
    const { url } = await serve();
    const discovered = await new WireClient(url, true).result('server/discover');
    expect(discovered.supportedVersions).toContain(VERSION);
    expect((discovered.capabilities as { extensions?: object }).extensions).toEqual({ [TASKS]: {} });
  });

  it('comes from the native-tasks feature, as SEP-1686 does: without it, no extension and a plain task_id', async () => {
    const { url } = await serve(builtinFeatures().filter((feature) => feature.name !== 'native-tasks'));
    const client = new WireClient(url, true);
    const discovered = await client.result('server/discover');
    expect((discovered.capabilities as { extensions?: object }).extensions).toBeUndefined();
    const answered = await client.result('tools/call', { name: 'drive', arguments: { distance_m: 3 } });
    expect(answered).not.toHaveProperty('resultType', 'task');
    expect(JSON.parse(textOf(answered))).toMatchObject({ state: 'running', task_id: expect.any(String) });
    await expect(client.result('tasks/get', { taskId: 'any' })).rejects.toThrow();
  });

  it('starts a long-running tool as a task and polls tasks/get to completion with the result inlined', async () => {
    const { app, url, rover } = await serve();
    const client = new WireClient(url, true);
    const created = await client.result('tools/call', { name: 'drive', arguments: { distance_m: 3 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number) });
    expect(created.pollIntervalMs).toEqual(expect.any(Number));
    const taskId = created.taskId as string;
    expect(taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created).not.toHaveProperty('content');

    // Durable creation: readable by tasks/get as soon as it was returned.
    expect(await client.result('tasks/get', { taskId })).toMatchObject({
      resultType: 'complete',
      taskId,
      status: 'working',
    });
    await step(rover, 4);
    let polled: Record<string, unknown> = {};
    await until(async () => {
      polled = await client.result('tasks/get', { taskId });
      return polled.status === 'completed';
    }, 20_000);
    expect(polled.result).toMatchObject({ structuredContent: { driven_m: 3 } });
    expect(JSON.parse(textOf(polled.result))).toEqual({ driven_m: 3 });

    // One task: the kit's own surfaces see the same task, succeeded.
    const [kitTask] = app.taskManager.list().filter((t) => t.tool === 'drive');
    expect(kitTask?.state).toBe('succeeded');
    expect(created._meta).toMatchObject({ 'robot-mcp-kit/task_id': kitTask!.task_id });
    expect(polled._meta).toMatchObject({ 'robot-mcp-kit/task_id': kitTask!.task_id });
    const kitView = await client.result('tools/call', {
      name: 'get_task',
      arguments: { task_id: kitTask!.task_id },
    });
    expect(JSON.parse(textOf(kitView))).toMatchObject({ state: 'succeeded', result: { driven_m: 3 } });
  });

  it('reports a failed kit task as completed with an isError result', async () => {
    const { url, rover } = await serve();
    const client = new WireClient(url, true);
    const created = await client.result('tools/call', {
      name: 'drive',
      arguments: { distance_m: 1, fail: true },
    });
    await step(rover, 4);
    let polled: Record<string, unknown> = {};
    await until(async () => {
      polled = await client.result('tasks/get', { taskId: created.taskId });
      return polled.status !== 'working';
    }, 20_000);
    expect(polled.status).toBe('completed');
    expect(polled.result).toMatchObject({ isError: true, structuredContent: { error_code: 'WHEEL_STUCK' } });
    expect(polled.statusMessage).toContain('WHEEL_STUCK');
  });

  it('tasks/cancel reaches the running work, which stops', async () => {
    const { app, url, rover } = await serve();
    const client = new WireClient(url, true);
    const created = await client.result('tools/call', { name: 'drive', arguments: { distance_m: 5 } });
    await step(rover, 1);
    await until(() => rover.gates.length > 0, 20_000);
    expect(await client.result('tasks/cancel', { taskId: created.taskId })).toMatchObject({
      resultType: 'complete',
    });
    let polled: Record<string, unknown> = {};
    await until(async () => {
      polled = await client.result('tasks/get', { taskId: created.taskId });
      return polled.status === 'cancelled';
    }, 20_000);
    const [kitTask] = app.taskManager.list().filter((t) => t.tool === 'drive');
    expect(kitTask?.state).toBe('cancelled');
    expect(rover.gates).toHaveLength(0); // the body's abort handler ran: it is waiting on nothing
    expect(kitTask?.progress).toMatchObject({ percent: 25 });
    expect(await client.result('tasks/update', { taskId: created.taskId, inputResponses: {} })).toMatchObject(
      {
        resultType: 'complete',
      },
    );
  });

  it('gives a client without the extension the plain task_id result and -32021 on tasks/*', async () => {
    const { app, url } = await serve();
    const plain = new WireClient(url, false);
    const result = await plain.result('tools/call', { name: 'drive', arguments: { distance_m: 2 } });
    expect(result.resultType).not.toBe('task');
    const info = JSON.parse(textOf(result)) as { task_id: string; state: string };
    expect(info).toMatchObject({ state: 'running' });
    expect(app.taskManager.get(info.task_id)?.state).toBe('running');

    const declared = await new WireClient(url, true).result('tools/call', {
      name: 'drive',
      arguments: { distance_m: 2 },
    });
    const refused = await plain.request('tasks/get', { taskId: declared.taskId });
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });

  it('answers unknown task ids with -32602, bad arguments with the tool error, and checks Mcp-Name', async () => {
    const { app, url } = await serve();
    const client = new WireClient(url, true);
    const unknown = await client.request('tasks/get', { taskId: 'rove-000001' });
    expect(unknown.error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });

    const bad = await client.result('tools/call', { name: 'drive', arguments: { distance_m: -1 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('distance_m');
    expect(app.taskManager.list()).toHaveLength(0);

    const created = await client.result('tools/call', { name: 'drive', arguments: { distance_m: 1 } });
    const mismatch = await client.request(
      'tasks/get',
      { taskId: created.taskId },
      { 'mcp-name': 'someone-else' },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.error?.message).toMatch(/Mcp-Name/);
  });
});
