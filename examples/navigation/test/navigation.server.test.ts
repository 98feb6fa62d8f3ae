import { afterEach, describe, expect, it } from '@jest/globals';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { DEFAULT_NAVIGATION_CONFIG, type NavigationConfig } from '../src/navigation.config.js';
import { NavigationServer } from '../src/navigation.server.js';
import { connect, type Harness, textOf, typesOf } from './harness.js';

// 2 m/s, 250 ms ticks: 0.5 m per tick. dock → kitchen is 26 m: 52 ticks, 13 s of simulated time.
const CONFIG: NavigationConfig = { ...DEFAULT_NAVIGATION_CONFIG, speedMps: 2, tickMs: 250 };

type TaskInfoJson = { task_id: string; state: string; tool: string; result: unknown; failure: unknown };

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The human behind the test client: says yes to every confirmation unless told otherwise. */
let answer: 'accept' | 'decline' = 'accept';
const asked: string[] = [];

async function start(config: NavigationConfig = CONFIG): Promise<Harness> {
  answer = 'accept';
  asked.length = 0;
  h = await connect(NavigationServer, {
    instance: new NavigationServer(config),
    elicit: (params) => {
      asked.push(params.message);
      return { action: answer };
    },
  });
  return h;
}

async function navigate(harness: Harness, args: Record<string, unknown>): Promise<TaskInfoJson> {
  const result = await harness.call('navigate_to', args);
  expect(result.isError).toBeFalsy();
  const info = result.structuredContent as TaskInfoJson;
  expect(JSON.parse(textOf(result))).toEqual(info);
  expect(info).toMatchObject({ tool: 'navigate_to', state: 'running' });
  return info;
}

const progressOf = (events: TaskEvent[]) => events.filter((e) => e.type === 'progress').map((e) => e.payload);

describe('navigation tools/list', () => {
  it('lists the tools with schemas and annotations', async () => {
    const harness = await start();
    const { tools } = await harness.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    // The kit may add tools of its own (event feeds); these are the server's and the reconciliation ones.
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        'navigate_to',
        'get_pose',
        'get_map',
        'stop',
        'rearm',
        'set_door',
        'get_task',
        'cancel_task',
        'list_tasks',
      ]),
    );
    const navigateTo = byName.get('navigate_to')!;
    expect(navigateTo.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    const schema = navigateTo.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(schema.required).toEqual(['goal']);
    expect(schema.properties.goal).toMatchObject({ type: 'string' });
    expect(String(schema.properties.goal!.description)).toContain('kitchen');
    expect(schema.properties.triggers).toMatchObject({ type: 'array' });
    expect(String(schema.properties.triggers!.description)).toMatch(
      /eta_below.*zone_entered|zone_entered.*eta_below/,
    );
    expect(byName.get('get_pose')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('get_map')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('stop')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('set_door')!._meta).toEqual({ 'io.robot-mcp-kit/confirm': true });
    expect(byName.get('set_door')!.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: true,
    });
  });

  it('describes the map', async () => {
    const harness = await start();
    expect(await harness.json('get_map')).toEqual({
      goals: ['dock', 'lobby', 'corridor', 'kitchen', 'lab'],
      zones: ['dock', 'lobby', 'kitchen', 'corridor', 'lab'],
      doors: { lab_door: 'closed' },
    });
  });
});

describe('navigate_to', () => {
  it('drives to the kitchen; eta_below and zone_entered fire once each, right after the progress that met them', async () => {
    const harness = await start();
    const triggers = [
      { type: 'eta_below', seconds: 3 },
      { type: 'zone_entered', zone: 'kitchen' },
    ];
    const info = await navigate(harness, { goal: 'kitchen', triggers });

    await harness.advance(2000);
    const moving = await harness.json('get_pose');
    expect(moving).toMatchObject({
      x: 4,
      y: 0,
      zone: 'lobby',
      moving: true,
      goal: 'kitchen',
      task_id: info.task_id,
    });

    await harness.advance(20_000);
    const events = harness.events(info.task_id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(typesOf(events).filter((t) => t === 'trigger_fired')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({
      type: 'task_done',
      payload: {
        result: {
          arrived: true,
          goal: 'kitchen',
          zone: 'kitchen',
          x: 20,
          y: 6,
          distance_m: 26,
          duration_s: 13,
        },
      },
    });

    const progress = progressOf(events);
    expect(progress).toHaveLength(52);
    expect(progress[0]).toEqual({ eta_s: 12.75, distance_m: 25.5, percent: 1.9, zone: 'dock', x: 0.5, y: 0 });
    expect(progress.at(-1)).toEqual({ eta_s: 0, distance_m: 0, percent: 100, zone: 'kitchen', x: 20, y: 6 });
    const zones = progress.map((p) => p.zone).filter((z, i, all) => i === 0 || all[i - 1] !== z);
    expect(zones).toEqual(['dock', 'lobby', 'corridor', 'kitchen']);

    for (const [trigger, met] of [
      [triggers[0]!, (p: Record<string, unknown>) => (p.eta_s as number) < 3],
      [triggers[1]!, (p: Record<string, unknown>) => p.zone === 'kitchen'],
    ] as const) {
      const fired = events.filter(
        (e) => e.type === 'trigger_fired' && (e.payload.trigger as { type: string }).type === trigger.type,
      );
      expect(fired).toHaveLength(1);
      const cause = events[fired[0]!.seq - 2]!;
      expect(cause.type).toBe('progress');
      expect(met(cause.payload)).toBe(true);
      expect(events.filter((e) => e.type === 'progress' && e.seq < cause.seq && met(e.payload))).toEqual([]);
      expect(fired[0]!.payload.trigger).toEqual(trigger);
    }
    const etaFired = events.find(
      (e) => e.type === 'trigger_fired' && (e.payload.trigger as { type: string }).type === 'eta_below',
    )!;
    expect(etaFired.payload).toEqual({ trigger: triggers[0], eta_s: 2.75 });
    const zoneFired = events.find(
      (e) => e.type === 'trigger_fired' && (e.payload.trigger as { type: string }).type === 'zone_entered',
    )!;
    expect(zoneFired.payload).toEqual({ trigger: triggers[1], zone: 'kitchen' });
    expect(etaFired.seq).toBeLessThan(zoneFired.seq);

    expect(await harness.json('get_pose')).toEqual({
      x: 20,
      y: 6,
      zone: 'kitchen',
      moving: false,
      goal: null,
      task_id: null,
    });
    const task = await harness.json<TaskInfoJson & { progress: unknown }>('get_task', {
      task_id: info.task_id,
    });
    expect(task).toMatchObject({
      state: 'succeeded',
      result: { arrived: true, goal: 'kitchen' },
      progress: progress.at(-1),
    });
  });

  it('arrives at once when the robot is already at the goal', async () => {
    const harness = await start();
    const info = await navigate(harness, { goal: 'dock' });
    await harness.advance(0);
    expect(harness.events(info.task_id).map((e) => [e.type, e.payload])).toEqual([
      ['progress', { eta_s: 0, distance_m: 0, percent: 100, zone: 'dock', x: 0, y: 0 }],
      [
        'task_done',
        { result: { arrived: true, goal: 'dock', zone: 'dock', x: 0, y: 0, distance_m: 0, duration_s: 0 } },
      ],
    ]);
  });

  it('fails an unknown goal with UNKNOWN_GOAL and the goals to choose from', async () => {
    const harness = await start();
    const info = await navigate(harness, { goal: 'moon' });
    await harness.advance(0);
    const failure = {
      error_code: 'UNKNOWN_GOAL',
      message: '"moon" is not a goal on this map. Choose one of: dock, lobby, corridor, kitchen, lab.',
      recoverable: true,
      suggestions: ['choose_one_of:dock,lobby,corridor,kitchen,lab'],
    };
    expect(harness.events(info.task_id).map((e) => [e.type, e.payload])).toEqual([['task_failed', failure]]);
    expect(await harness.json('get_task', { task_id: info.task_id })).toMatchObject({
      state: 'failed',
      failure,
    });
    expect(await harness.json('get_pose')).toMatchObject({ x: 0, y: 0, moving: false });
  });

  it('stops in front of a closed door with DOOR_CLOSED after some progress; opening it lets the robot through', async () => {
    const harness = await start();
    const blocked = await navigate(harness, {
      goal: 'lab',
      triggers: [{ type: 'zone_entered', zone: 'lab' }],
    });
    await harness.advance(30_000);
    const events = harness.events(blocked.task_id);
    expect(progressOf(events).length).toBeGreaterThan(10);
    expect(progressOf(events).at(-1)).toMatchObject({ zone: 'corridor', x: 25, y: 0, distance_m: 6 });
    expect(typesOf(events)).not.toContain('trigger_fired');
    expect(events.at(-1)).toMatchObject({
      type: 'task_failed',
      payload: {
        error_code: 'DOOR_CLOSED',
        recoverable: true,
        suggestions: ['ask_reception', 'retry_after_s:300'],
      },
    });
    expect(String(events.at(-1)!.payload.message)).toContain('lab_door');
    expect(await harness.json('get_pose')).toMatchObject({ x: 25, y: 0, zone: 'corridor', moving: false });

    answer = 'decline'; // the human says no: the door stays closed
    const declined = await harness.call('set_door', { door: 'lab_door', open: true });
    expect(declined.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect((await harness.json<{ doors: Record<string, string> }>('get_map')).doors.lab_door).toBe('closed');
    answer = 'accept';
    expect(await harness.json('set_door', { door: 'lab_door', open: true })).toEqual({
      door: 'lab_door',
      state: 'open',
    });
    expect(asked).toEqual(['Set door lab_door to open=true?', 'Set door lab_door to open=true?']);
    const retry = await navigate(harness, { goal: 'lab', triggers: [{ type: 'zone_entered', zone: 'lab' }] });
    await harness.advance(10_000);
    const after = harness.events(retry.task_id);
    expect(typesOf(after).filter((t) => t !== 'progress')).toEqual(['trigger_fired', 'task_done']);
    expect(after.at(-1)!.payload).toMatchObject({
      result: { goal: 'lab', zone: 'lab', x: 31, distance_m: 6 },
    });
  });

  it('a second navigate_to preempts the first: cancelled, no terminal event, no more events', async () => {
    const harness = await start();
    const first = await navigate(harness, { goal: 'kitchen' });
    await harness.advance(2000);
    const second = await navigate(harness, { goal: 'dock' });
    expect(await harness.json('get_task', { task_id: first.task_id })).toMatchObject({ state: 'cancelled' });
    const firstEvents = harness.events(first.task_id).length;
    expect(typesOf(harness.events(first.task_id))).toEqual(Array(8).fill('progress'));

    await harness.advance(10_000);
    expect(harness.events(first.task_id)).toHaveLength(firstEvents);
    expect(harness.events(second.task_id).at(-1)).toMatchObject({
      type: 'task_done',
      payload: { result: { goal: 'dock', distance_m: 4 } },
    });
    const { tasks } = await harness.json<{ tasks: TaskInfoJson[] }>('list_tasks');
    expect(tasks.map((t) => [t.task_id, t.state])).toEqual([
      [first.task_id, 'cancelled'],
      [second.task_id, 'succeeded'],
    ]);
  });

  it('stop halts the robot and cancels its task', async () => {
    const harness = await start();
    expect(await harness.json('stop')).toEqual({
      stopped: false,
      pose: { x: 0, y: 0, zone: 'dock', moving: false, goal: null, task_id: null },
    });
    // the stop latched: no drive starts until rearm
    const refused = await harness.call('navigate_to', { goal: 'kitchen' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error_code: 'ESTOPPED' });
    expect(await harness.json('rearm')).toEqual({ armed: true });
    const info = await navigate(harness, { goal: 'kitchen' });
    await harness.advance(3000);
    const stopped = await harness.json('stop');
    expect(stopped).toEqual({
      stopped: true,
      task_id: info.task_id,
      goal: 'kitchen',
      pose: { x: 6, y: 0, zone: 'lobby', moving: false, goal: null, task_id: null },
    });
    expect(await harness.json('get_task', { task_id: info.task_id })).toMatchObject({ state: 'cancelled' });
    const count = harness.events(info.task_id).length;
    await harness.advance(10_000);
    expect(harness.events(info.task_id)).toHaveLength(count);
    expect(typesOf(harness.events(info.task_id))).not.toContain('task_failed');
    expect(await harness.json('get_pose')).toMatchObject({ x: 6, y: 0, moving: false });

    // From the middle of a passage the robot drives on to the waypoint that makes the trip shortest.
    await harness.json('rearm');
    const resumed = await navigate(harness, { goal: 'kitchen' });
    await harness.advance(30_000);
    expect(harness.events(resumed.task_id).at(-1)!.payload).toMatchObject({
      result: { goal: 'kitchen', distance_m: 20 },
    });
  });

  it('cancel_task cancels a drive; cancelling again returns the same state', async () => {
    const harness = await start();
    const info = await navigate(harness, { goal: 'kitchen' });
    await harness.advance(1000);
    expect(await harness.json('cancel_task', { task_id: info.task_id })).toEqual({
      task_id: info.task_id,
      state: 'cancelled',
    });
    expect(await harness.json('cancel_task', { task_id: info.task_id })).toEqual({
      task_id: info.task_id,
      state: 'cancelled',
    });
    expect(await harness.json('get_pose')).toEqual({
      x: 2,
      y: 0,
      zone: 'lobby',
      moving: false,
      goal: null,
      task_id: null,
    });
    await harness.advance(5000);
    expect(typesOf(harness.events(info.task_id))).toEqual(['progress', 'progress', 'progress', 'progress']);
    expect(await harness.json('get_task', { task_id: 'nav-000000' })).toEqual({ error: 'not_found' });
  });

  it('rejects bad arguments and bad triggers as tool errors, and keeps serving', async () => {
    const harness = await start();
    const missing = await harness.call('navigate_to', {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('goal');
    const unknown = await harness.call('navigate_to', { goal: 'kitchen', speed: 3 });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('speed');
    const badTrigger = await harness.call('navigate_to', {
      goal: 'kitchen',
      triggers: [{ type: 'eta_below', seconds: 'soon' }],
    });
    expect(badTrigger.isError).toBe(true);
    expect(textOf(badTrigger)).toContain('triggers[0].seconds');
    const door = await harness.call('set_door', { door: 'front_door', open: true });
    expect(door.isError).toBe(true);
    expect(textOf(door)).toContain('"front_door" is not a door of this map; use one of lab_door');
    expect(harness.app.taskManager.list()).toEqual([]);
    expect(await harness.json('get_pose')).toMatchObject({ moving: false });
  });
});
