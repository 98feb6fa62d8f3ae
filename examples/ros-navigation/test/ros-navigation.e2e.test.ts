import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type RosbridgeDouble, startRosbridgeDouble } from '@robot-mcp-kit/ros/testing';
import { callJson, ChildServers, waitUntilTaskOver } from '../../../test/support/child-server.js';
import { SignedReceiver } from '../../../test/support/signed-receiver.js';
import { until, waitFor } from '../../../test/support/until.js';

// The "Done when", end to end: the built example as a child process, the official SDK client
// over stdio, the rosbridge double (real WebSocket, the real roslib client inside the server) and a
// receiver that verifies every event's signature.

const SECRET = 'ros-navigation-e2e-secret-0123456789abcdef';
const main = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
const servers = new ChildServers(main);
const receiver = new SignedReceiver(SECRET);
let callbackUrl = '';
let double: RosbridgeDouble;

beforeAll(async () => {
  servers.assertBuilt();
  callbackUrl = await receiver.start();
});
afterAll(() => receiver.close());
beforeEach(async () => {
  double = await startRosbridgeDouble({ speedMps: 2, feedbackIntervalMs: 50, batteryIntervalMs: 50 });
});
afterEach(async () => {
  await servers.cleanup();
  await double.stop();
});

const env = () => ({ ROSBRIDGE_URL: double.url, RVC_CALLBACK_URL: callbackUrl, RVC_EVENT_SECRET: SECRET });
const eventsOf = (taskId: unknown) => receiver.received.filter((r) => r.event.task_id === taskId);
const typesOf = (taskId: unknown) => eventsOf(taskId).map((r) => r.event.type);

async function connect(args: string[] = [], extra: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main, ...args],
    env: servers.env({ ...env(), ...extra }),
    stderr: 'pipe',
  });
  const before = double.clients;
  const client = servers.track(new Client({ name: 'ros-e2e', version: '1' }));
  await client.connect(transport);
  await waitFor('the server to reach rosbridge', () => double.clients > before);
  return client;
}

describe('examples/ros-navigation against the rosbridge double', () => {
  it('a goal runs to SUCCEEDED: progress from feedback, eta_below fired once, signed events', async () => {
    const client = await connect();
    const started = await callJson(client, 'navigate_to_pose', {
      x: 3,
      y: 0,
      triggers: [{ type: 'eta_below', seconds: 0.5 }],
    });
    const done = await waitUntilTaskOver(client, started.task_id);
    expect(done).toMatchObject({ state: 'succeeded', result: { arrived: true, x: 3, y: 0 } });
    await waitFor('task_done to arrive', () => typesOf(started.task_id).includes('task_done'));
    const events = eventsOf(started.task_id);
    expect(events.every((r) => r.verified)).toBe(true);
    const progress = events.filter((r) => r.event.type === 'progress');
    expect(progress.length).toBeGreaterThan(5);
    expect(progress[0]!.event.payload).toMatchObject({
      eta_s: expect.any(Number),
      distance_m: expect.any(Number),
    });
    expect(typesOf(started.task_id).filter((t) => t === 'trigger_fired')).toHaveLength(1);
  });

  it('cancel reaches the action server and the task ends cancelled; an aborted goal fails', async () => {
    const client = await connect();
    double.faults.cancelDelayMs = 1500;
    const started = await callJson(client, 'navigate_to_pose', { x: 200, y: 0 });
    await until(() => double.activeGoals === 1, 'the goal at the action server');
    const cancelled = await callJson(client, 'cancel_task', { task_id: started.task_id });
    expect(cancelled).toMatchObject({ state: 'cancelled', body_running: true });
    await waitFor('cancel_action_goal at the double', () =>
      double.received.some((m) => m.op === 'cancel_action_goal'),
    );
    await waitFor('the body to stop once CANCELED is confirmed', async () => {
      const t = await callJson(client, 'get_task', { task_id: started.task_id });
      return t.state === 'cancelled' && t.body_running === undefined;
    });
    expect(double.activeGoals).toBe(0);

    double.faults.abortAfterFeedbacks = 3;
    const doomed = await callJson(client, 'navigate_to_pose', { x: -50, y: 0 });
    const failed = await waitUntilTaskOver(client, doomed.task_id);
    expect(failed).toMatchObject({ state: 'failed', failure: { error_code: 'ROS_GOAL_ABORTED' } });
  });

  it('rosbridge dropped mid-goal: the task fails ROS_DISCONNECTED and the server reconnects', async () => {
    const client = await connect();
    double.faults.dropAfterFeedbacks = 3;
    const started = await callJson(client, 'navigate_to_pose', { x: 100, y: 0 });
    const failed = await waitUntilTaskOver(client, started.task_id);
    expect(failed).toMatchObject({
      state: 'failed',
      failure: { error_code: 'ROS_DISCONNECTED', recoverable: true },
    });
    await waitFor('task_failed to arrive', () => typesOf(started.task_id).includes('task_failed'));
    double.faults.dropAfterFeedbacks = undefined;
    await waitFor('the server to reconnect', () => double.clients >= 1, 30_000);
    const again = await callJson(client, 'navigate_to_pose', { x: double.robot.x + 0.5, y: 0 });
    expect(await waitUntilTaskOver(client, again.task_id)).toMatchObject({ state: 'succeeded' });
  });

  it('topic triggers fire: battery_below on a drive and on the battery watcher; get_battery and dock', async () => {
    const client = await connect();
    double.robot.battery = 0.5;
    // readings of the battery at 90 % may still be on their way: wait for the new level
    const reading = await waitFor('a battery reading of 50 %', async () => {
      const battery = await callJson(client, 'get_battery');
      return battery.percent === 50 ? battery : undefined;
    });
    expect(reading).toMatchObject({ known: true, voltage: expect.any(Number), charging: false });
    const watch = await callJson(client, 'watch_battery', {
      triggers: [{ type: 'battery_below', percent: 30 }],
    });
    const drive = await callJson(client, 'navigate_to_pose', {
      x: 40,
      y: 0,
      triggers: [{ type: 'battery_below', percent: 30 }],
    });
    double.robot.battery = 0.2;
    for (const id of [watch.task_id, drive.task_id]) {
      await waitFor(`battery_below on ${String(id)}`, () => typesOf(id).includes('trigger_fired'), 30_000);
    }
    const fired = eventsOf(drive.task_id).find((r) => r.event.type === 'trigger_fired')!;
    expect(fired.verified).toBe(true);
    expect(fired.event.payload).toMatchObject({ trigger: { type: 'battery_below', percent: 30 } });
    expect(await callJson(client, 'dock')).toEqual({ success: true, message: 'docked' });
  });

  it('the e-stop cancels every goal and publishes the stop message, also under --read-only', async () => {
    const client = await connect();
    const started = await callJson(client, 'navigate_to_pose', { x: 200, y: 0 });
    await until(() => double.activeGoals === 1, 'the goal at the action server');
    const report = await callJson(client, 'emergency_stop');
    expect(report).toMatchObject({ stop_published: true, cancelled_goals: [{ task_id: started.task_id }] });
    await until(() => double.activeGoals === 0, 'the action server to cancel the goal');
    expect(await waitUntilTaskOver(client, started.task_id)).toMatchObject({ state: 'cancelled' });
    const zero = { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } };
    await waitFor('the zero Twist', () => double.published.get('/cmd_vel')?.length === 1);
    expect(double.published.get('/cmd_vel')).toEqual([zero]);

    const readOnly = await connect(['--read-only']);
    const names = (await readOnly.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['emergency_stop', 'get_battery', 'watch_battery']));
    expect(names).not.toContain('navigate_to_pose');
    expect(names).not.toContain('dock');
    expect(await callJson(readOnly, 'emergency_stop')).toMatchObject({ stop_published: true });
    await waitFor('the second zero Twist', () => double.published.get('/cmd_vel')?.length === 2);
  });

  it('one command: without ROSBRIDGE_URL the server starts its own simulated robot', async () => {
    const { client, stderr } = await servers.connectStdio({ ROS_SIM_SPEED_MPS: '5' });
    servers.track(client);
    const started = await callJson(client, 'navigate_to_pose', { x: 1, y: 1 });
    expect(await waitUntilTaskOver(client, started.task_id)).toMatchObject({ state: 'succeeded' });
    expect(stderr()).toMatch(/ROSBRIDGE_URL is not set: simulated robot/);
  });
});
