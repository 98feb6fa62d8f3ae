import { afterEach, describe, expect, it } from '@jest/globals';
import { IsNumber, IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { CapabilityServer, LongRunningTool, NoArgs, Tool, type ToolCallContext } from '@robot-mcp-kit/server';
import { connect, type Harness, textOf, until } from '../fixtures/harness.js';

class MoveJointArgs {
  @IsString() joint!: string;
  @IsNumber() angle_deg!: number;
}

let stubbornRelease: (() => void) | undefined;

/** An arm written from docs/authoring.md: one cooperative motion, one that ignores cancellation. */
@CapabilityServer({ name: 'arm-m8', version: '1.0.0' })
class ArmServer {
  @LongRunningTool({ description: 'Move one joint', actuates: true })
  async moveJoint(args: MoveJointArgs, ctx: TaskContext): Promise<JsonObject> {
    await ctx.sleep(3_600_000);
    return { joint: args.joint };
  }

  @LongRunningTool({ description: 'A motion that ignores cancellation', actuates: true })
  async stubborn(_args: MoveJointArgs, _ctx: TaskContext): Promise<JsonObject> {
    await new Promise<void>((resolve) => (stubbornRelease = resolve));
    return {};
  }

  // The emergency stop of docs/authoring.md section 4a, as written there.
  @Tool({
    description:
      'Emergency stop: cancels every running task of this server at once and returns {stopped: [...]}; ' +
      'an entry with still_moving: true has not stopped yet (get_task shows when it has).',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  })
  async emergencyStop(_args: NoArgs, ctx: ToolCallContext): Promise<object> {
    const cancelled = await ctx.tasks.cancelAll();
    return {
      stopped: cancelled.map((t) => ({
        task_id: t.task_id,
        tool: t.tool,
        still_moving: t.body_running === true,
      })),
    };
  }
}

const harnesses: Harness[] = [];
afterEach(async () => {
  stubbornRelease?.();
  for (const h of harnesses.splice(0)) await h.close();
});

async function start(h: Harness, tool: string, args: JsonObject): Promise<string> {
  const result = await h.call(tool, args);
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { task_id: string }).task_id;
}

describe('a tool controls the server tasks through ctx.tasks', () => {
  it('emergency_stop cancels every running task (ids with a readable prefix) and says which', async () => {
    // read-only mode still offers the stop (it does not act on the world) and hides the motions
    const readOnly = await connect(ArmServer, { env: {}, readOnly: true });
    harnesses.push(readOnly);
    const offered = (await readOnly.client.listTools()).tools.map((t) => t.name);
    expect(offered).toContain('emergency_stop');
    expect(offered).not.toContain('move_joint');
    const h = await connect(ArmServer, { env: {} });
    harnesses.push(h);
    const a = await start(h, 'move_joint', { joint: 'elbow', angle_deg: 30 });
    const b = await start(h, 'move_joint', { joint: 'wrist', angle_deg: 10 });
    expect(a).toMatch(/^armm-[0-9a-f]{6}$/);
    const result = await h.call('emergency_stop');
    const stopped = (result.structuredContent as { stopped: { task_id: string; still_moving: boolean }[] })
      .stopped;
    expect(stopped.map((s) => s.task_id).sort()).toEqual([a, b].sort());
    expect(stopped.every((s) => !s.still_moving)).toBe(true);
    for (const id of [a, b]) expect(h.app.taskManager.get(id)?.state).toBe('cancelled');
  });

  it('cancel_task answers at once and says a body that ignores cancellation is still running', async () => {
    const h = await connect(ArmServer, { env: {}, tasks: { cancelReplyMs: 50, cancelGraceMs: 2000 } });
    harnesses.push(h);
    const id = await start(h, 'stubborn', { joint: 'elbow', angle_deg: 1 });
    await until(() => stubbornRelease !== undefined);
    const started = Date.now();
    const reply = await h.json('cancel_task', { task_id: id });
    // The reply does not wait for the 2 s grace (the reply itself shows no overran_grace yet).
    expect(Date.now() - started).toBeLessThan(2000);
    expect(reply).toEqual({ task_id: id, state: 'cancelled', body_running: true });
    await until(() => h.app.taskManager.get(id)?.overran_grace === true, 15_000);
    const info = await h.json('get_task', { task_id: id });
    expect(info).toMatchObject({ state: 'cancelled', body_running: true, overran_grace: true });
    stubbornRelease?.();
    await until(() => h.app.taskManager.get(id)?.body_running === undefined);
    const after = await h.json('get_task', { task_id: id });
    expect(after.state).toBe('cancelled');
    expect(after).not.toHaveProperty('body_running');
  });

  it('a long-running tool result lists the trigger types nothing recognises', async () => {
    const h = await connect(ArmServer, { env: {} });
    harnesses.push(h);
    const result = await h.call('move_joint', {
      joint: 'elbow',
      angle_deg: 5,
      triggers: [
        { type: 'force_abov', newtons: 20 },
        { type: 'progress_above', percent: 50 },
      ],
    });
    const body = result.structuredContent as Record<string, unknown>;
    expect(body.state).toBe('running');
    expect(body.unrecognised_triggers).toEqual(['force_abov']);
    expect(body.known_trigger_types).toEqual(expect.arrayContaining(['progress_above']));
    expect(JSON.parse(textOf(result))).toEqual(body);
    // The event feed shows it too: a wait on the task returns at once with the entry.
    const waited = await h.json<{ entry: Record<string, unknown> }>('wait_for_event', {
      task_id: body.task_id,
      timeout_s: 30,
    });
    expect(waited.entry).toMatchObject({
      kind: 'unrecognised_triggers',
      task_id: body.task_id,
      tool: 'move_joint',
      types: ['force_abov'],
    });
    const feed = await h.json<{ entries: { kind: string }[] }>('get_events', {});
    expect(feed.entries.filter((e) => e.kind === 'unrecognised_triggers')).toHaveLength(1);
    const plain = await h.call('move_joint', { joint: 'elbow', angle_deg: 5 });
    expect(plain.structuredContent).not.toHaveProperty('unrecognised_triggers');
  });
});
