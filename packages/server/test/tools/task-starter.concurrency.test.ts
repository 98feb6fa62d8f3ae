import { IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { createTask, rig, type Rig } from '../features/native-tasks/native-tasks.fixtures.js';
import { textOf, until } from '../fixtures/harness.js';

class DriveArgs {
  @IsString()
  goal!: string;
}

/** A robot whose drive bodies count how many of them run at once. */
@CapabilityServer({ name: 'rover', version: '1.0.0' })
class RoverServer {
  active = 0;
  maxActive = 0;
  started: string[] = [];

  @LongRunningTool({ description: 'Drive to a goal', actuates: true, maxConcurrent: 1, preempt: true })
  async drive(args: DriveArgs, ctx: TaskContext): Promise<JsonObject> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.started.push(args.goal);
    try {
      await ctx.sleep(60_000);
      return { arrived: args.goal };
    } finally {
      this.active -= 1;
    }
  }
}

/** A drive whose body keeps going for a while after it is cancelled (longer than cancelReplyMs). */
@CapabilityServer({ name: 'slowstop', version: '1.0.0' })
class SlowStopServer {
  active = 0;
  maxActive = 0;
  started: string[] = [];
  stopped: string[] = [];

  @LongRunningTool({ description: 'Drive to a goal', actuates: true, maxConcurrent: 1, preempt: true })
  async drive(args: DriveArgs, ctx: TaskContext): Promise<JsonObject> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.started.push(args.goal);
    try {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      // Braking takes longer than cancel's prompt answer: the next drive must still wait.
      await new Promise<void>((resolve) => setTimeout(resolve, 600).unref());
      return { arrived: args.goal };
    } finally {
      this.active -= 1;
      this.stopped.push(args.goal);
    }
  }
}

describe('maxConcurrent 1 + preempt under pipelined calls', () => {
  let r: Rig | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  const running = (app: Rig['app']) => app.taskManager.list(['running']).filter((t) => t.tool === 'drive');

  it('never runs more than one drive for 4 plain calls sent at once', async () => {
    r = await rig(RoverServer);
    const rover = r.app.instance as RoverServer;
    const { client } = await r.peer();
    const goals = ['a', 'b', 'c', 'd'];
    const results = await Promise.all(
      goals.map((goal) => client.callTool({ name: 'drive', arguments: { goal } })),
    );
    for (const result of results) expect(result.isError).toBeFalsy();
    await until(() => rover.started.length === 4, 10_000);
    expect(rover.maxActive).toBe(1);
    expect(running(r.app)).toHaveLength(1);
    const last = JSON.parse(textOf(results[3] as never)) as { task_id: string };
    expect(running(r.app)[0]?.task_id).toBe(last.task_id);
    expect(r.app.taskManager.list(['cancelled'])).toHaveLength(3);
  });

  it('never runs more than one drive for 4 task-augmented calls sent at once', async () => {
    r = await rig(RoverServer);
    const rover = r.app.instance as RoverServer;
    const { client } = await r.peer();
    const tasks = await Promise.all(
      ['a', 'b', 'c', 'd'].map((goal) => createTask(client, 'drive', { goal })),
    );
    await until(() => rover.started.length === 4, 10_000);
    expect(rover.maxActive).toBe(1);
    expect(running(r.app).map((t) => t.task_id)).toEqual([tasks[3]?.taskId]);
  });

  it('starts the preempting drive only after the cancelled body stopped, not at the prompt cancel answer', async () => {
    r = await rig(SlowStopServer);
    const rover = r.app.instance as SlowStopServer;
    const { client } = await r.peer();
    const first = await client.callTool({ name: 'drive', arguments: { goal: 'a' } });
    expect(first.isError).toBeFalsy();
    await until(() => rover.started.length === 1, 10_000);
    const second = await client.callTool({ name: 'drive', arguments: { goal: 'b' } });
    expect(second.isError).toBeFalsy();
    await until(() => rover.started.length === 2, 10_000);
    expect(rover.stopped).toContain('a');
    expect(rover.maxActive).toBe(1);
  });
});
