import { afterEach, describe, expect, it } from '@jest/globals';
import { ErrorCode, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  ArmServer,
  createTask,
  errorCodeOf,
  eventsOf,
  openGate,
  type Peer,
  type Rig,
  rig,
  toolJson,
  until,
} from '../features/native-tasks/native-tasks.fixtures.js';
import { textOf, WireClient } from '../../../../test/support/mcp-2026.wire-client.js';

/*
 * "One task, every surface": a task started by either generation is one TaskManager task, seen with
 * the same state through get_task / cancel_task (from a 2025 or a 2026 client), SEP-2663 tasks/get
 * (2026 clients with the extension), SEP-1686 tasks/* (the 2025 session that created it),
 * `tasks://` resources and the signed push events.
 */
let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const arm = (): ArmServer => r!.app.instance as ArmServer;

async function serve(): Promise<{ url: string; legacy: Peer }> {
  r = await rig(ArmServer, { http: true });
  return { url: r.url!, legacy: await r.peer() };
}

async function readTask(peer: Peer, taskId: string): Promise<Record<string, unknown>> {
  const { contents } = await peer.client.readResource({ uri: `tasks://${taskId}` });
  return JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>;
}

function resourceUpdates(peer: Peer): string[] {
  const seen: string[] = [];
  peer.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.push(n.params.uri);
  });
  return seen;
}

/** Starts `move` as a SEP-2663 task; returns its wire handle and the kit's task id. */
async function startExtensionTask(client: WireClient, steps: number) {
  const created = await client.result('tools/call', { name: 'move', arguments: { steps } });
  expect(created.resultType).toBe('task');
  const kitId = (created._meta as Record<string, string>)['robot-mcp-kit/task_id']!;
  expect(kitId).toMatch(/^arm-/);
  return { handle: created.taskId as string, kitId };
}

async function pollUntil(client: WireClient, handle: string, status: string) {
  let polled: Record<string, unknown> = {};
  await until(async () => {
    polled = await client.result('tasks/get', { taskId: handle });
    return polled.status === status;
  }, 20_000);
  return polled;
}

describe('one task, every surface (2025-11-25 and 2026-07-28 clients of one server)', () => {
  it('a SEP-2663 task cancelled by tasks/cancel stops, and every surface says cancelled', async () => {
    const { url, legacy } = await serve();
    const modern = new WireClient(url, true);
    const seen = resourceUpdates(legacy);
    const { handle, kitId } = await startExtensionTask(modern, 3);
    await legacy.client.subscribeResource({ uri: `tasks://${kitId}` });
    await openGate(arm());
    await until(() => eventsOf(r!.events, kitId).some((e) => e.type === 'progress'), 20_000);

    // Running, one progress report, on every surface.
    const progressed = await pollUntil(modern, handle, 'working');
    expect(progressed.statusMessage).toContain('33%');
    expect(await toolJson(legacy.client, 'get_task', { task_id: kitId })).toMatchObject({
      state: 'running',
      progress: { percent: 33 },
    });
    const fromModern = JSON.parse(
      textOf(await modern.result('tools/call', { name: 'get_task', arguments: { task_id: kitId } })),
    ) as Record<string, unknown>;
    expect(fromModern).toMatchObject({ task_id: kitId, state: 'running', progress: { percent: 33 } });
    expect(await readTask(legacy, kitId)).toMatchObject({ task_id: kitId, state: 'running' });
    // SEP-1686 tasks/* are scoped to the 2025 session that created a task: not this one.
    expect(await errorCodeOf(legacy.client.experimental.tasks.getTask(kitId))).toBe(ErrorCode.InvalidParams);

    await until(() => arm().gates.length > 0, 20_000);
    expect(await modern.result('tasks/cancel', { taskId: handle })).toMatchObject({ resultType: 'complete' });

    // The real work stopped: its signal aborted while it waited for step 2.
    await until(() => arm().aborted.includes(kitId), 20_000);
    expect(arm().steps).toEqual([1]);
    expect(arm().gates).toHaveLength(0);
    // The same terminal state everywhere.
    const cancelled = await pollUntil(modern, handle, 'cancelled');
    expect(cancelled).not.toHaveProperty('result');
    expect(r!.app.taskManager.get(kitId)?.state).toBe('cancelled');
    expect(await toolJson(legacy.client, 'get_task', { task_id: kitId })).toMatchObject({
      state: 'cancelled',
      progress: { percent: 33 },
    });
    await until(() => seen.includes(`tasks://${kitId}`), 20_000);
    expect(await readTask(legacy, kitId)).toMatchObject({ state: 'cancelled' });
    const modernRead = await modern.result('resources/read', { uri: `tasks://${kitId}` });
    expect(JSON.parse((modernRead.contents as { text: string }[])[0]!.text)).toMatchObject({
      task_id: kitId,
      state: 'cancelled',
    });
    // Push events: the progress that happened, then nothing terminal (the wire contract: a cancel
    // emits no task_done / task_failed; the canceller already knows).
    const types = eventsOf(r!.events, kitId).map((e) => e.type);
    expect(types).toEqual(['progress']);
    // cancel_task (any generation) now answers the terminal state unchanged.
    expect(await toolJson(legacy.client, 'cancel_task', { task_id: kitId })).toMatchObject({
      task_id: kitId,
      state: 'cancelled',
    });
  });

  it('cancel_task from a 2025 client cancels a SEP-2663 task; tasks/get reports it', async () => {
    const { url, legacy } = await serve();
    const modern = new WireClient(url, true);
    const { handle, kitId } = await startExtensionTask(modern, 2);
    await until(() => arm().gates.length > 0, 20_000);
    expect(await toolJson(legacy.client, 'cancel_task', { task_id: kitId })).toMatchObject({
      state: 'cancelled',
    });
    await until(() => arm().aborted.includes(kitId), 20_000);
    const polled = await pollUntil(modern, handle, 'cancelled');
    expect(polled._meta).toMatchObject({ 'robot-mcp-kit/task_id': kitId });
    expect(eventsOf(r!.events, kitId)).toEqual([]);
  });

  it('a SEP-1686 task of a 2025 session is seen and cancelled by a 2026 client through the tools', async () => {
    const { url, legacy } = await serve();
    const task = await createTask(legacy.client, 'move', { steps: 3, label: 'reach' });
    await openGate(arm());
    await until(() => eventsOf(r!.events, task.taskId).length > 0, 20_000);

    const modern = new WireClient(url, false);
    const viewed = JSON.parse(
      textOf(await modern.result('tools/call', { name: 'get_task', arguments: { task_id: task.taskId } })),
    ) as Record<string, unknown>;
    expect(viewed).toMatchObject({
      task_id: task.taskId,
      state: 'running',
      progress: { percent: 33, message: 'reach 1/3' },
    });
    expect(await legacy.client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'working',
      statusMessage: 'reach 1/3',
    });
    // The SEP-2663 handle space is separate: a kit id is not a tasks/get handle.
    const declared = new WireClient(url, true);
    expect((await declared.request('tasks/get', { taskId: task.taskId })).error?.code).toBe(-32602);

    await until(() => arm().gates.length > 0, 20_000);
    const cancelled = JSON.parse(
      textOf(await modern.result('tools/call', { name: 'cancel_task', arguments: { task_id: task.taskId } })),
    ) as Record<string, unknown>;
    expect(cancelled).toMatchObject({ task_id: task.taskId, state: 'cancelled' });
    await until(() => arm().aborted.includes(task.taskId), 20_000);
    // The owning 2025 session hears it (notifications/tasks/status) and its tasks/get agrees.
    await until(() => legacy.statuses.some((s) => s.status === 'cancelled'), 20_000);
    expect(legacy.statuses.map((s) => [s.taskId, s.status])).toEqual([[task.taskId, 'cancelled']]);
    expect(await legacy.client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'cancelled',
    });
    expect(await readTask(legacy, task.taskId)).toMatchObject({ state: 'cancelled' });
    expect(eventsOf(r!.events, task.taskId).map((e) => e.type)).toEqual(['progress']);
  });
});
