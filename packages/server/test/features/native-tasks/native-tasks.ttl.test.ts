import { afterEach, describe, expect, it } from '@jest/globals';
import { CallToolResultSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import {
  ArmServer,
  createTask,
  errorCodeOf,
  openGate,
  type Rig,
  rig,
  toolJson,
} from './native-tasks.fixtures.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const arm = (): ArmServer => r!.app.instance as ArmServer;
const HOUR = 60 * 60 * 1000;

async function finishOne(client: Parameters<typeof createTask>[0], ttl?: number): Promise<string> {
  const created = await createTask(client, 'move', { steps: 1 }, ttl === undefined ? {} : { ttl });
  await openGate(arm());
  await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
  return created.taskId;
}

describe('TTL', () => {
  it('expires a finished task from tasks/* once its TTL ran out; get_task still answers for it', async () => {
    const clock = new ManualClock();
    r = await rig(ArmServer, { clock });
    const { client } = await r.peer();
    const taskId = await finishOne(client, 60_000);

    await clock.advance(59_999);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({
      status: 'completed',
      ttl: 60_000,
    });
    expect(await toolJson(client, 'get_task', { task_id: taskId })).toMatchObject({ state: 'succeeded' });

    await clock.advance(1);
    expect(await errorCodeOf(client.experimental.tasks.getTask(taskId))).toBe(ErrorCode.InvalidParams);
    expect(await errorCodeOf(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).toBe(
      ErrorCode.InvalidParams,
    );
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
    // Poll is the truth: the reconciliation tools keep the task until the TaskManager's own retention
    // (maxFinishedRetained) evicts it; the native TTL does not reach them.
    expect(await toolJson(client, 'get_task', { task_id: taskId })).toMatchObject({ state: 'succeeded' });
    expect(await toolJson(client, 'list_tasks', {})).toMatchObject({ tasks: [{ task_id: taskId }] });
  });

  it('never expires a running task: the TTL counts from its end', async () => {
    const clock = new ManualClock();
    r = await rig(ArmServer, { clock });
    const { client } = await r.peer();
    const created = await createTask(client, 'move', { steps: 1 }, { ttl: 5000 });
    await clock.advance(10 * HOUR);
    expect(await client.experimental.tasks.getTask(created.taskId)).toMatchObject({ status: 'working' });
    await openGate(arm());
    await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
    await clock.advance(4999);
    expect(await client.experimental.tasks.getTask(created.taskId)).toMatchObject({ status: 'completed' });
    await clock.advance(1);
    expect(await errorCodeOf(client.experimental.tasks.getTask(created.taskId))).toBe(
      ErrorCode.InvalidParams,
    );
  });

  it('grants the default TTL when none is asked and clamps asked ones to the bounds', async () => {
    const clock = new ManualClock();
    r = await rig(ArmServer, { clock, nativeTasks: { maxTtlMs: 2 * HOUR, minTtlMs: 10_000 } });
    const { client } = await r.peer();
    expect((await createTask(client, 'move', { steps: 1 })).ttl).toBe(HOUR);
    expect((await createTask(client, 'move', { steps: 1 }, { ttl: 100 * HOUR })).ttl).toBe(2 * HOUR);
    expect((await createTask(client, 'move', { steps: 1 }, { ttl: 1 })).ttl).toBe(10_000);
    for (let i = 0; i < 3; i += 1) await openGate(arm());
  });

  it('bounds memory: beyond maxTasks the oldest finished task expires early', async () => {
    const clock = new ManualClock();
    r = await rig(ArmServer, { clock, nativeTasks: { maxTasks: 2 } });
    const { client } = await r.peer();
    const first = await finishOne(client);
    const second = await finishOne(client);
    const third = await finishOne(client);
    const listed = (await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
    expect(listed).toEqual([second, third]);
    // The TaskManager keeps it for get_task (its own retention bounds it).
    expect(r.app.taskManager.get(first)?.state).toBe('succeeded');
  });

  it('keeps serving a finished protocol task the TaskManager already evicted, until its TTL', async () => {
    const clock = new ManualClock();
    r = await rig(ArmServer, { clock, tasks: { maxFinishedRetained: 1 } });
    const { client } = await r.peer();
    const first = await finishOne(client);
    await finishOne(client);
    expect(r.app.taskManager.get(first)).toBeUndefined();
    expect(await client.experimental.tasks.getTask(first)).toMatchObject({ status: 'completed' });
    const result = await client.experimental.tasks.getTaskResult(first, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ moved: 1 });
    await clock.advance(HOUR);
    expect(await errorCodeOf(client.experimental.tasks.getTask(first))).toBe(ErrorCode.InvalidParams);
  });
});
