import { afterEach, describe, expect, it } from '@jest/globals';
import { CallToolResultSchema, ErrorCode, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import {
  ArmServer,
  createTask,
  errorCodeOf,
  eventsOf,
  openGate,
  type Rig,
  rig,
  textOf,
  toolJson,
  until,
} from './native-tasks.fixtures.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const arm = (): ArmServer => r!.app.instance as ArmServer;

describe('capability and tool listing', () => {
  it('advertises the tasks capability and taskSupport "optional" on long-running tools only', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('move')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('count')?.execution).toEqual({ taskSupport: 'optional' });
    for (const name of ['ping', 'get_task', 'cancel_task', 'list_tasks']) {
      expect(byName.get(name)?.execution).toBeUndefined();
    }
  });

  it('keeps the plain call in dual mode: TaskInfo JSON at once, no protocol task', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const result = await client.callTool({ name: 'move', arguments: { steps: 1 } });
    const info = result.structuredContent as { task_id: string; state: string };
    expect(info.state).toBe('running');
    expect(JSON.parse(textOf(result as never))).toMatchObject({ task_id: info.task_id, tool: 'move' });
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect(await errorCodeOf(client.experimental.tasks.getTask(info.task_id))).toBe(ErrorCode.InvalidParams);
    await openGate(arm());
    await until(() => r!.app.taskManager.get(info.task_id)?.state === 'succeeded');
  });

  it('refuses a task-augmented call of a tool without task support with -32601', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const code = await errorCodeOf(
      client.request(
        { method: 'tools/call', params: { name: 'ping', arguments: {}, task: {} } },
        CallToolResultSchema,
      ),
    );
    expect(code).toBe(ErrorCode.MethodNotFound);
  });

  it('reports bad arguments of a task-augmented call as invalid params and starts nothing', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'move', arguments: { steps: 0 } },
      CallToolResultSchema,
      { task: {} },
    );
    const messages = [];
    for await (const message of stream) messages.push(message);
    expect(messages).toHaveLength(1);
    const error = (messages[0] as { type: string; error: { code: number; message: string } }).error;
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/steps/);
    expect(r.app.taskManager.list()).toEqual([]);
  });
});

describe('a task-augmented call', () => {
  it('runs, polls, fetches the result, and notifies each status change', async () => {
    r = await rig(ArmServer);
    const peer = await r.peer();
    const tasks = peer.client.experimental.tasks;
    const created = await createTask(peer.client, 'move', { steps: 2, label: 'lifting' }, { ttl: 120_000 });
    expect(created).toMatchObject({ status: 'working', ttl: 120_000, pollInterval: 1000 });
    expect(r.app.taskManager.get(created.taskId)?.tool).toBe('move');

    await openGate(arm());
    await until(() => arm().steps.length === 1);
    const working = await tasks.getTask(created.taskId);
    expect(working).toMatchObject({
      taskId: created.taskId,
      status: 'working',
      statusMessage: 'lifting 1/2',
    });
    expect(working.createdAt).toBe(created.createdAt);
    expect(Date.parse(working.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));

    const pending = tasks.getTaskResult(created.taskId, CallToolResultSchema);
    await openGate(arm());
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ moved: 2 });
    expect(JSON.parse(textOf(result))).toEqual({ moved: 2 });
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: created.taskId });

    expect(await tasks.getTask(created.taskId)).toMatchObject({ status: 'completed' });
    await until(() => peer.statuses.length > 0);
    expect(peer.statuses.map((s) => [s.taskId, s.status])).toEqual([[created.taskId, 'completed']]);
    // fetching again gives the same result
    expect((await tasks.getTaskResult(created.taskId, CallToolResultSchema)).structuredContent).toEqual({
      moved: 2,
    });
  });

  it('streams to the end with callToolStream', async () => {
    r = await rig(ArmServer, { nativeTasks: { pollIntervalMs: 20 } });
    const { client } = await r.peer();
    const stream = client.experimental.tasks.callToolStream({ name: 'move', arguments: { steps: 1 } });
    const types: string[] = [];
    const opener = openGate(arm());
    let final: unknown;
    for await (const message of stream) {
      types.push(message.type);
      if (message.type === 'result') final = message.result.structuredContent;
    }
    await opener;
    expect(types[0]).toBe('taskCreated');
    expect(types[types.length - 1]).toBe('result');
    expect(final).toEqual({ moved: 1 });
  });

  it('gives a failed task as an isError result with the TaskFailure', async () => {
    r = await rig(ArmServer);
    const peer = await r.peer();
    const created = await createTask(peer.client, 'move', { steps: 1, fail: true });
    await openGate(arm());
    const result = await peer.client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    const failure = {
      error_code: 'GRIPPER_JAMMED',
      message: 'The gripper jammed.',
      recoverable: true,
      suggestions: ['open_gripper'],
    };
    expect(result.structuredContent).toEqual(failure);
    expect(JSON.parse(textOf(result))).toEqual(failure);
    expect(await peer.client.experimental.tasks.getTask(created.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'GRIPPER_JAMMED: The gripper jammed.',
    });
    await until(() => peer.statuses.length > 0);
    expect(peer.statuses[0]).toMatchObject({ taskId: created.taskId, status: 'failed' });
  });

  it('lists only its own tasks, page by page', async () => {
    r = await rig(ArmServer, { nativeTasks: { pageSize: 2 } });
    const peer = await r.peer();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createTask(peer.client, 'count', { items: 1 })).taskId);
    await peer.client.callTool({ name: 'count', arguments: { items: 1 } }); // plain: not a protocol task
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await peer.client.experimental.tasks.listTasks(cursor);
      pages += 1;
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      for (const task of page.tasks) expect(task.status).toBe('working');
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
    expect(await errorCodeOf(peer.client.experimental.tasks.listTasks('bogus'))).toBe(
      ErrorCode.InvalidParams,
    );
  });

  it('answers unknown task ids with invalid params on every method', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const tasks = client.experimental.tasks;
    for (const call of [
      () => tasks.getTask('arm-nope'),
      () => tasks.getTaskResult('arm-nope', CallToolResultSchema),
      () => tasks.cancelTask('arm-nope'),
      () => tasks.getTask(''),
    ]) {
      expect(await errorCodeOf(call())).toBe(ErrorCode.InvalidParams);
    }
  });
});

describe('cancellation', () => {
  it('tasks/cancel aborts the body: cancelled status, no more progress, no terminal push event', async () => {
    r = await rig(ArmServer);
    const peer = await r.peer();
    const tasks = peer.client.experimental.tasks;
    const created = await createTask(peer.client, 'move', { steps: 3 });
    await openGate(arm());
    await until(() => eventsOf(r!.events, created.taskId).length === 1);
    const waiting = tasks.getTaskResult(created.taskId, CallToolResultSchema);

    const cancelled = await tasks.cancelTask(created.taskId);
    expect(cancelled).toMatchObject({ taskId: created.taskId, status: 'cancelled' });
    expect(arm().aborted).toEqual([created.taskId]);
    expect(arm().gates).toEqual([]);
    expect(r.app.taskManager.get(created.taskId)?.state).toBe('cancelled');

    const result = await waiting;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ task_id: created.taskId, state: 'cancelled' });
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: created.taskId });

    await r.app.poster.flush(1000);
    expect(eventsOf(r.events, created.taskId).map((e) => e.type)).toEqual(['progress']);
    expect(arm().steps).toEqual([1]);
    await until(() => peer.statuses.length > 0);
    expect(peer.statuses.map((s) => s.status)).toEqual(['cancelled']);
    expect(await tasks.getTask(created.taskId)).toMatchObject({
      status: 'cancelled',
      statusMessage: 'The task was cancelled.',
    });
  });

  it('refuses to cancel a finished task with invalid params and leaves it completed', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const created = await createTask(client, 'move', { steps: 1 });
    await openGate(arm());
    await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(await errorCodeOf(client.experimental.tasks.cancelTask(created.taskId))).toBe(
      ErrorCode.InvalidParams,
    );
    expect(await client.experimental.tasks.getTask(created.taskId)).toMatchObject({ status: 'completed' });
    expect(r.app.taskManager.get(created.taskId)?.state).toBe('succeeded');
  });

  it('cancel_task on a native task is seen by tasks/get and the status notification', async () => {
    r = await rig(ArmServer);
    const peer = await r.peer();
    const created = await createTask(peer.client, 'move', { steps: 2 });
    await openGate(arm());
    await until(() => arm().steps.length === 1);
    expect(await toolJson(peer.client, 'cancel_task', { task_id: created.taskId })).toEqual({
      task_id: created.taskId,
      state: 'cancelled',
    });
    expect(arm().aborted).toEqual([created.taskId]);
    expect(await peer.client.experimental.tasks.getTask(created.taskId)).toMatchObject({
      status: 'cancelled',
    });
    await until(() => peer.statuses.length > 0);
    expect(peer.statuses[0]).toMatchObject({ taskId: created.taskId, status: 'cancelled' });
    await r.app.poster.flush(1000);
    expect(eventsOf(r.events, created.taskId).map((e) => e.type)).toEqual(['progress']);
  });
});

describe('session isolation', () => {
  it('hides a task from other sessions while get_task sees every task', async () => {
    r = await rig(ArmServer);
    const alice = await r.peer();
    const bob = await r.peer();
    const created = await createTask(alice.client, 'move', { steps: 1 });
    const bobs = bob.client.experimental.tasks;
    expect(await errorCodeOf(bobs.getTask(created.taskId))).toBe(ErrorCode.InvalidParams);
    expect(await errorCodeOf(bobs.getTaskResult(created.taskId, CallToolResultSchema))).toBe(
      ErrorCode.InvalidParams,
    );
    expect(await errorCodeOf(bobs.cancelTask(created.taskId))).toBe(ErrorCode.InvalidParams);
    expect((await bobs.listTasks()).tasks).toEqual([]);
    expect(r.app.taskManager.get(created.taskId)?.state).toBe('running');
    expect(await toolJson(bob.client, 'get_task', { task_id: created.taskId })).toMatchObject({
      task_id: created.taskId,
      state: 'running',
    });
    expect((await alice.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([
      created.taskId,
    ]);
    await openGate(arm());
    await alice.client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(bob.statuses).toEqual([]);
  });

  it('releases a waiting tasks/result when its session closes', async () => {
    r = await rig(ArmServer, { keepTasksOnSessionEnd: true });
    const peer = await r.peer();
    const created = await createTask(peer.client, 'move', { steps: 1 });
    const waiting = peer.client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    await peer.close();
    await expect(waiting).rejects.toThrow();
    expect(r.app.taskManager.get(created.taskId)?.state).toBe('running');
    await openGate(arm());
    await until(() => r!.app.taskManager.get(created.taskId)?.state === 'succeeded');
  });
});
