import { afterEach, describe, expect, it } from '@jest/globals';
import { TaskInfo } from '@robot-mcp-kit/core';
import { type TriggerPlugin } from '@robot-mcp-kit/server';
import { connect, eventsOf, type Harness, textOf, until } from '../fixtures/harness.js';
import { RoverServer } from '../fixtures/rover.server.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function startDrive(harness: Harness, args: Record<string, unknown>): Promise<string> {
  const result = await harness.call('drive', args);
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { task_id: string }).task_id;
}

async function stepAll(harness: Harness, steps: number): Promise<void> {
  const rover = harness.app.instance as RoverServer;
  for (let i = 0; i < steps; i += 1) {
    await until(() => rover.gates.length > 0);
    rover.gates.shift()?.();
  }
}

describe('tools/list', () => {
  it('lists decorated and reconciliation tools with DTO schemas, descriptions and annotations', async () => {
    h = await connect(RoverServer);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'cancel_task',
        'drive',
        'echo',
        'explode',
        'get_events',
        'get_task',
        'list_tasks',
        'ping',
        'wait_for_event',
      ].sort(),
    );
    const drive = tools.find((t) => t.name === 'drive')!;
    expect(drive.description).toBe('Drive forward');
    expect(drive.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    const schema = drive.inputSchema as unknown as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.required).toEqual(['distance_m']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.distance_m).toMatchObject({
      type: 'number',
      minimum: 0,
      description: 'Distance to drive, in metres',
    });
    expect(schema.properties.mode).toMatchObject({ enum: ['slow', 'fast'] });
    const triggers = schema.properties.triggers as { type: string; description: string };
    expect(triggers.type).toBe('array');
    for (const type of ['progress_above', 'eta_below', 'zone_entered', 'battery_below']) {
      expect(triggers.description).toContain(type);
    }
    const echo = tools.find((t) => t.name === 'echo')!;
    expect(echo.annotations).toEqual({ readOnlyHint: true });
    expect(echo.inputSchema.properties).not.toHaveProperty('triggers');
    const ping = tools.find((t) => t.name === 'ping')!;
    expect(ping.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    const getTask = tools.find((t) => t.name === 'get_task')!;
    expect(getTask.description).toMatch(/not for starting work/);
    expect(getTask.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'cancel_task')!.annotations?.idempotentHint).toBe(true);
  });

  it('passes the server instructions and name at initialization', async () => {
    h = await connect(RoverServer);
    expect(h.client.getServerVersion()).toMatchObject({ name: 'rover', version: '1.2.3' });
    expect(h.client.getInstructions()).toBe('Drive the rover.');
  });
});

describe('plain tools', () => {
  it('returns objects as JSON text plus structuredContent, strings as text', async () => {
    h = await connect(RoverServer);
    const echo = await h.call('echo', { text: 'hi' });
    expect(echo.structuredContent).toEqual({ text: 'hi', session: true });
    expect(JSON.parse(textOf(echo))).toEqual({ text: 'hi', session: true });
    expect(textOf(await h.call('ping'))).toBe('pong');
  });

  it('turns a throwing method into a tool error and keeps serving', async () => {
    h = await connect(RoverServer);
    const result = await h.call('explode');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('explode failed: boom');
    expect(textOf(await h.call('ping'))).toBe('pong');
  });
});

describe('argument validation', () => {
  it.each([
    [{ distance_m: 'far' }, 'distance_m: distance_m must be a number'],
    [{ distance_m: -1 }, 'distance_m: distance_m must not be less than 0'],
    [{}, 'distance_m'],
    [{ distance_m: 1, speed: 3 }, 'property speed should not exist'],
    [{ distance_m: 1, mode: 'warp' }, 'mode: mode must be one of the following values: slow, fast'],
    [{ distance_m: 1, triggers: 'soon' }, 'triggers'],
    [{ distance_m: 1, triggers: [{ type: 'eta_below', seconds: 'x' }] }, 'triggers[0].seconds'],
    [{ distance_m: 1, triggers: [{ type: 'battery_below' }] }, 'percent'],
  ])('rejects %j with a tool error naming the field', async (args, expected) => {
    h = await connect(RoverServer);
    const result = await h.call('drive', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(expected);
    expect(h.app.taskManager.list()).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(textOf(await h.call('ping'))).toBe('pong');
  });

  it('never lets a __proto__ key pollute prototypes, and keeps serving', async () => {
    h = await connect(RoverServer);
    const args = JSON.parse('{"distance_m": 1, "__proto__": {"polluted": true}, "mode": "slow"}') as Record<
      string,
      unknown
    >;
    await expect(h.call('drive', args)).rejects.toThrow(/params\.arguments\.__proto__: the key "__proto__"/);
    expect(h.app.taskManager.list()).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(textOf(await h.call('ping'))).toBe('pong');
  });

  it('rejects arguments to a tool that takes none, and unknown tools with a protocol error', async () => {
    h = await connect(RoverServer);
    const result = await h.call('ping', { x: 1 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('property x should not exist');
    await expect(h.call('teleport')).rejects.toThrow(/Tool teleport not found/);
  });
});

describe('long-running tools', () => {
  it('returns the TaskInfo at once (text + structuredContent) and runs the body as a task', async () => {
    h = await connect(RoverServer);
    const result = await h.call('drive', { distance_m: 8 });
    const info = result.structuredContent as Record<string, unknown>;
    expect(JSON.parse(textOf(result))).toEqual(info);
    expect(info).toMatchObject({
      server: 'rover',
      tool: 'drive',
      state: 'running',
      est_duration_s: 8,
      triggers: [],
    });
    expect(info.task_id).toMatch(/^rove-[0-9a-f]{6}$/);
    await stepAll(h, 4);
    const taskId = info.task_id as string;
    await until(() => h!.app.taskManager.get(taskId)?.state === 'succeeded');
    await h.app.poster.flush(2000);
    const events = eventsOf(h.transport, taskId);
    expect(events.map((e) => e.type)).toEqual(['progress', 'progress', 'progress', 'progress', 'task_done']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events.at(-1)!.payload).toEqual({ result: { driven_m: 8 } });
  });

  it('fails with the TaskError failure', async () => {
    h = await connect(RoverServer);
    const taskId = await startDrive(h, { distance_m: 1, fail: true });
    await stepAll(h, 4);
    await until(() => h!.app.taskManager.get(taskId)?.state === 'failed');
    const info = await h.json('get_task', { task_id: taskId });
    expect(info.failure).toEqual({
      error_code: 'WHEEL_STUCK',
      message: 'A wheel is stuck.',
      recoverable: true,
      suggestions: ['push_gently'],
    });
  });

  it('fires built-in, custom and class triggers from progress alone, once unless repeat', async () => {
    h = await connect(RoverServer);
    const triggers = [
      { type: 'eta_below', seconds: 3 },
      { type: 'zone_entered', zone: 'kitchen' },
      { type: 'progress_above', percent: 50, repeat: true },
      { type: 'battery_below', percent: 85 },
      { type: 'teleported' },
    ];
    const taskId = await startDrive(h, { distance_m: 1, triggers });
    await stepAll(h, 4);
    await until(() => h!.app.taskManager.get(taskId)?.state === 'succeeded');
    await h.app.poster.flush(2000);
    const fired = eventsOf(h.transport, taskId)
      .filter((e) => e.type === 'trigger_fired')
      .map((e) => e.payload);
    expect(fired).toEqual([
      { trigger: { type: 'progress_above', percent: 50, repeat: true }, percent: 50 },
      { trigger: { type: 'battery_below', percent: 85 }, battery: 80 },
      { trigger: { type: 'eta_below', seconds: 3 }, eta_s: 2 },
      { trigger: { type: 'zone_entered', zone: 'kitchen' }, zone: 'kitchen' },
      { trigger: { type: 'progress_above', percent: 50, repeat: true }, percent: 75 },
      { trigger: { type: 'progress_above', percent: 50, repeat: true }, percent: 100 },
    ]);
    expect(
      h.logger
        .at('warn')
        .some((e) => e.message.includes('teleported') || JSON.stringify(e.meta).includes('teleported')),
    ).toBe(true);
  });

  it('uses registered plugins and lets a @Trigger method override a plugin', async () => {
    const nearPlugin: TriggerPlugin = {
      type: 'battery_below',
      description: 'plugin version',
      evaluate: () => ({ from: 'plugin' }),
    };
    const custom: TriggerPlugin = {
      type: 'distance_over',
      description: 'fires when the progress percent is over metres',
      validate: (t) => (typeof t.metres === 'number' ? undefined : ['metres: expected a number']),
      evaluate: (t, progress) =>
        (progress.percent as number) > (t.metres as number) ? { over: true } : undefined,
    };
    h = await connect(RoverServer, { plugins: [nearPlugin, custom] });
    const taskId = await startDrive(h, {
      distance_m: 1,
      triggers: [
        { type: 'battery_below', percent: 95 },
        { type: 'distance_over', metres: 60 },
      ],
    });
    await stepAll(h, 4);
    await until(() => h!.app.taskManager.get(taskId)?.state === 'succeeded');
    await h.app.poster.flush(2000);
    const fired = eventsOf(h.transport, taskId)
      .filter((e) => e.type === 'trigger_fired')
      .map((e) => e.payload);
    expect(fired).toEqual([
      { trigger: { type: 'battery_below', percent: 95 }, battery: 90 },
      { trigger: { type: 'distance_over', metres: 60 }, over: true },
    ]);
    const bad = await h.call('drive', { distance_m: 1, triggers: [{ type: 'distance_over' }] });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('metres');
  });
});

describe('reconciliation tools (spec §3.3)', () => {
  it('get_task, cancel_task and list_tasks return the spec JSON', async () => {
    h = await connect(RoverServer);
    expect(await h.json('get_task', { task_id: 'rove-000000' })).toEqual({ error: 'not_found' });
    expect(await h.json('cancel_task', { task_id: 'rove-000000' })).toEqual({ error: 'not_found' });
    expect(await h.json('list_tasks')).toEqual({ tasks: [] });

    const running = await startDrive(h, { distance_m: 2 });
    const done = await startDrive(h, { distance_m: 3 });
    const info = await h.json('get_task', { task_id: running });
    // the spec's fields in order, then the event feed's cursor (an MCP answer's extra, docs/safety.md)
    expect(Object.keys(info)).toEqual([
      'task_id',
      'server',
      'tool',
      'state',
      'created_at',
      'updated_at',
      'triggers',
      'est_duration_s',
      'progress',
      'result',
      'failure',
      'feed_cursor',
    ]);
    expect(info).toMatchObject({
      task_id: running,
      state: 'running',
      progress: null,
      result: null,
      failure: null,
    });
    expect(info.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    expect(await h.json('cancel_task', { task_id: running })).toEqual({
      task_id: running,
      state: 'cancelled',
    });
    expect(await h.json('cancel_task', { task_id: running })).toEqual({
      task_id: running,
      state: 'cancelled',
    });
    await stepAll(h, 4);
    await until(() => h!.app.taskManager.get(done)?.state === 'succeeded');
    expect(await h.json('cancel_task', { task_id: done })).toEqual({ task_id: done, state: 'succeeded' });

    const all = (await h.json('list_tasks')).tasks as Array<Record<string, unknown>>;
    expect(all.map((t) => [t.task_id, t.state])).toEqual([
      [running, 'cancelled'],
      [done, 'succeeded'],
    ]);
    const onlyRunning = await h.json('list_tasks', { states: ['running'] });
    expect(onlyRunning).toEqual({ tasks: [] });
    const bad = await h.call('list_tasks', { states: ['sleeping'] });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('states');
    await h.app.poster.flush(2000);
    expect(
      eventsOf(h.transport, running).some((e) => e.type === 'task_done' || e.type === 'task_failed'),
    ).toBe(false);
  });

  it('round-trips get_task output through the core TaskInfo model', async () => {
    h = await connect(RoverServer);
    const taskId = await startDrive(h, { distance_m: 2, triggers: [{ type: 'eta_below', seconds: 1 }] });
    const { feed_cursor: feedCursor, ...json } = await h.json('get_task', { task_id: taskId });
    expect(feedCursor).toBe(0); // the MCP answer's extra, which the model ignores
    const { parseTaskInfo } = await import('@robot-mcp-kit/core');
    const parsed = parseTaskInfo({ ...json, feed_cursor: feedCursor });
    expect(parsed).toBeInstanceOf(TaskInfo);
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(json);
  });
});

describe('shutdown', () => {
  it('close() cancels running tasks, refuses new ones and flushes events', async () => {
    h = await connect(RoverServer);
    const taskId = await startDrive(h, { distance_m: 2 });
    await stepAll(h, 1);
    await until(() => h!.app.taskManager.get(taskId)?.progress !== null);
    const report = await h.app.close({ timeoutMs: 2000 });
    expect(h.app.taskManager.get(taskId)?.state).toBe('cancelled');
    expect(report.unflushed).toBe(0);
    expect(eventsOf(h.transport, taskId).map((e) => e.type)).toEqual(['progress']);
    h = undefined;
  });
});

describe('connectTestClient', () => {
  it('refuses advance() without a ManualClock and lists all events without a task id', async () => {
    h = await connect(RoverServer);
    await expect(h.advance(10)).rejects.toThrow(/ManualClock/);
    const taskId = await startDrive(h, { distance_m: 1 });
    await stepAll(h, 4);
    await until(() => h!.app.taskManager.get(taskId)?.state === 'succeeded');
    await h.app.poster.flush(2000);
    expect(h.events().map((e) => e.task_id)).toEqual(h.events(taskId).map((e) => e.task_id));
    expect(h.events()).toHaveLength(5);
  });
});
