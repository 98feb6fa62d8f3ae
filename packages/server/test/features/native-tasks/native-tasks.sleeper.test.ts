import { afterEach, describe, expect, it } from '@jest/globals';
import { CallToolResultSchema, ErrorCode, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { SleeperServer } from '../../../../../examples/sleeper/src/sleeper.server.js';
import {
  createTask,
  errorCodeOf,
  eventsOf,
  type Rig,
  rig,
  toolJson,
  until,
} from './native-tasks.fixtures.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const typesOf = (taskId: string): string[] => eventsOf(r!.events, taskId).map((e) => e.type);

describe.each([
  ['in-memory', false],
  ['streamable HTTP', true],
])('the sleeper over %s', (_name, http) => {
  it('serves one task to the native client, get_task and the push events', async () => {
    const clock = new ManualClock();
    r = await rig(SleeperServer, { http, clock });
    const peer = await r.peer();
    const tasks = peer.client.experimental.tasks;
    const progress: Progress[] = [];
    const created = await createTask(
      peer.client,
      'sleep_task',
      { duration_s: 3 },
      { onprogress: (p) => progress.push(p) },
    );
    expect(created.status).toBe('working');

    // the same id is the app's task
    expect(await toolJson(peer.client, 'get_task', { task_id: created.taskId })).toMatchObject({
      task_id: created.taskId,
      tool: 'sleep_task',
      state: 'running',
      est_duration_s: 3,
    });

    await clock.advance(1000);
    await until(() => typesOf(created.taskId).length === 1 && progress.length === 1);
    expect(await tasks.getTask(created.taskId)).toMatchObject({
      status: 'working',
      statusMessage: '33.3% — eta 2 s',
    });
    expect(progress[0]).toMatchObject({ progress: 33.33, total: 100, message: '33.3% — eta 2 s' });

    const result = tasks.getTaskResult(created.taskId, CallToolResultSchema);
    await clock.advance(2000);
    expect((await result).structuredContent).toEqual({ slept_s: 3 });
    expect(await tasks.getTask(created.taskId)).toMatchObject({ status: 'completed' });
    expect(await toolJson(peer.client, 'get_task', { task_id: created.taskId })).toMatchObject({
      state: 'succeeded',
      result: { slept_s: 3 },
    });
    await until(() => typesOf(created.taskId).length === 4 && peer.statuses.length === 1);
    expect(typesOf(created.taskId)).toEqual(['progress', 'progress', 'progress', 'task_done']);
    expect(r.events.events.find((e) => e.type === 'task_done')?.payload).toEqual({ result: { slept_s: 3 } });
    expect(peer.statuses[0]).toMatchObject({ taskId: created.taskId, status: 'completed' });
    await until(() => progress.length === 3);
    expect(progress.map((p) => p.progress)).toEqual([33.33, 66.67, 100]);
  });

  it('tasks/cancel stops the sleeper: no later progress, no terminal push event', async () => {
    const clock = new ManualClock();
    r = await rig(SleeperServer, { http, clock });
    const peer = await r.peer();
    const created = await createTask(peer.client, 'sleep_task', { duration_s: 10 });
    await clock.advance(1000);
    await until(() => typesOf(created.taskId).length === 1);

    const cancelled = await peer.client.experimental.tasks.cancelTask(created.taskId);
    expect(cancelled).toMatchObject({ taskId: created.taskId, status: 'cancelled' });
    await clock.advance(10_000);
    await r.app.poster.flush(1000);
    expect(typesOf(created.taskId)).toEqual(['progress']);
    expect(await toolJson(peer.client, 'get_task', { task_id: created.taskId })).toMatchObject({
      state: 'cancelled',
    });
    const result = await peer.client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    await until(() => peer.statuses.length === 1);
    expect(peer.statuses[0]).toMatchObject({ status: 'cancelled' });
    expect(await errorCodeOf(peer.client.experimental.tasks.cancelTask(created.taskId))).toBe(
      ErrorCode.InvalidParams,
    );
  });

  it('cancel_task stops a native task too, and tasks/get sees it', async () => {
    const clock = new ManualClock();
    r = await rig(SleeperServer, { http, clock });
    const peer = await r.peer();
    const created = await createTask(peer.client, 'sleep_task', { duration_s: 10 });
    await clock.advance(1000);
    await until(() => typesOf(created.taskId).length === 1);
    expect(await toolJson(peer.client, 'cancel_task', { task_id: created.taskId })).toMatchObject({
      state: 'cancelled',
    });
    await clock.advance(10_000);
    await r.app.poster.flush(1000);
    expect(typesOf(created.taskId)).toEqual(['progress']);
    expect(await peer.client.experimental.tasks.getTask(created.taskId)).toMatchObject({
      status: 'cancelled',
    });
  });

  it('keeps the plain caller working alone: TaskInfo at once, get_task to the end', async () => {
    const clock = new ManualClock();
    r = await rig(SleeperServer, { http, clock });
    const { client } = await r.peer();
    const started = await client.callTool({ name: 'sleep_task', arguments: { duration_s: 1 } });
    const taskId = (started.structuredContent as { task_id: string }).task_id;
    await clock.advance(1000);
    await until(() => typesOf(taskId).includes('task_done'));
    expect(await toolJson(client, 'get_task', { task_id: taskId })).toMatchObject({ state: 'succeeded' });
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it('isolates sessions: another client cannot read or cancel the task', async () => {
    const clock = new ManualClock();
    r = await rig(SleeperServer, { http, clock });
    const alice = await r.peer();
    const bob = await r.peer();
    const created = await createTask(alice.client, 'sleep_task', { duration_s: 2 });
    expect(await errorCodeOf(bob.client.experimental.tasks.getTask(created.taskId))).toBe(
      ErrorCode.InvalidParams,
    );
    expect(await errorCodeOf(bob.client.experimental.tasks.cancelTask(created.taskId))).toBe(
      ErrorCode.InvalidParams,
    );
    expect((await bob.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await clock.advance(2000);
    const result = await alice.client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ slept_s: 2 });
    expect(bob.statuses).toEqual([]);
  });
});
