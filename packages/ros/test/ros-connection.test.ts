import { connectTestClient, type TestClient } from '@robot-mcp-kit/server/testing';
import { batteryBelowTrigger, RoslibRosConnection } from '../src/index.js';
import { type RosbridgeDouble, startRosbridgeDouble } from '../src/testing/index.js';
import { until, waitFor } from '../../../test/support/until.js';
import { RosTestServer } from './support/ros-test.server.js';

// The package against the rosbridge double, through the kit's real task machinery and the official
// SDK client (connectTestClient): goals, cancel, faults, services, topics, publishing, the e-stop.

type Info = {
  task_id: string;
  state: string;
  body_running?: boolean;
  result?: Record<string, unknown>;
  failure?: { error_code: string; message: string };
};

describe('RoslibRosConnection against the rosbridge double', () => {
  let double: RosbridgeDouble;
  let ros: RoslibRosConnection;
  const clients: TestClient[] = [];

  const open = async (options: { readOnly?: boolean } = {}): Promise<TestClient> => {
    const client = await connectTestClient(RosTestServer, {
      instance: new RosTestServer(ros),
      plugins: [batteryBelowTrigger],
      ...options,
    });
    clients.push(client);
    return client;
  };
  const taskOf = (c: TestClient, id: string) => c.json<Info>('get_task', { task_id: id });
  const ended = (c: TestClient, id: string) =>
    waitFor(`task ${id} to end`, async () => {
      const info = await taskOf(c, id);
      return info.state !== 'running' && info.body_running !== true ? info : undefined;
    });

  beforeEach(async () => {
    double = await startRosbridgeDouble({ speedMps: 5, feedbackIntervalMs: 20, batteryIntervalMs: 10 });
    ros = new RoslibRosConnection({
      url: double.url,
      server: RosTestServer,
      reconnectInitialMs: 50,
      reconnectMaxMs: 200,
    });
    await ros.whenConnected();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    ros.close();
    await double.stop();
  });

  it('runs a goal to SUCCEEDED: feedback becomes progress and eta_below fires once', async () => {
    const c = await open();
    const started = await c.json<Info>('go', { x: 2, y: 0, triggers: [{ type: 'eta_below', seconds: 0.2 }] });
    const info = await ended(c, started.task_id);
    expect(info.state).toBe('succeeded');
    expect(info.result).toEqual({ arrived: true });
    const events = c.events(started.task_id);
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress.length).toBeGreaterThan(3);
    expect(typeof progress[0]!.payload.eta_s).toBe('number');
    expect(events.filter((e) => e.type === 'trigger_fired')).toHaveLength(1);
    expect(events[events.length - 1]!.type).toBe('task_done');
  });

  it('cancel_task reaches the action server; body_running until it confirms CANCELED', async () => {
    const c = await open();
    double.faults.cancelDelayMs = 1500;
    const started = await c.json<Info>('go', { x: 500, y: 0 });
    await until(() => double.activeGoals === 1, 'the goal to reach the double');
    const cancelled = await c.json<Info>('cancel_task', { task_id: started.task_id });
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.body_running).toBe(true);
    await waitFor('cancel_action_goal at the double', () =>
      double.received.some((m) => m.op === 'cancel_action_goal'),
    );
    const info = await ended(c, started.task_id);
    expect(info.state).toBe('cancelled');
    expect(double.activeGoals).toBe(0);
    expect(ros.inFlightGoals()).toHaveLength(0);
  });

  it('an aborted goal fails with ROS_GOAL_ABORTED, a rejected one with ROS_GOAL_REJECTED', async () => {
    const c = await open();
    double.faults.abortAfterFeedbacks = 2;
    const aborted = await ended(c, (await c.json<Info>('go', { x: 50, y: 0 })).task_id);
    expect(aborted.state).toBe('failed');
    expect(aborted.failure?.error_code).toBe('ROS_GOAL_ABORTED');
    double.faults.abortAfterFeedbacks = undefined;
    double.faults.rejectGoals = true;
    const rejected = await ended(c, (await c.json<Info>('go', { x: 1, y: 0 })).task_id);
    expect(rejected.failure?.error_code).toBe('ROS_GOAL_REJECTED');
  });

  it('rosbridge dropped mid-goal: the task fails ROS_DISCONNECTED, the connection comes back', async () => {
    const c = await open();
    double.faults.dropAfterFeedbacks = 3;
    const started = await c.json<Info>('go', { x: 50, y: 0 });
    const info = await ended(c, started.task_id);
    expect(info.state).toBe('failed');
    expect(info.failure?.error_code).toBe('ROS_DISCONNECTED');
    double.faults.dropAfterFeedbacks = undefined;
    await ros.whenConnected(15_000);
    const again = await ended(c, (await c.json<Info>('go', { x: double.robot.x + 0.5, y: 0 })).task_id);
    expect(again.state).toBe('succeeded');
  });

  it('while rosbridge is down a goal fails at once, and after a restart it runs', async () => {
    const c = await open();
    await double.stop();
    await until(() => !ros.isConnected, 'the connection to notice');
    const refused = await ended(c, (await c.json<Info>('go', { x: 1, y: 0 })).task_id);
    expect(refused.failure?.error_code).toBe('ROS_DISCONNECTED');
    await double.start();
    await ros.whenConnected(15_000);
    expect((await ended(c, (await c.json<Info>('go', { x: 1, y: 0 })).task_id)).state).toBe('succeeded');
  });

  it('services: an answer, a clear error when the service is absent', async () => {
    const c = await open();
    expect(await c.json('dock')).toEqual({ success: true, message: 'docked' });
    double.faults.dockMissing = true;
    const missing = await c.call('dock');
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toMatch(/ROS_SERVICE_UNAVAILABLE/);
  });

  it('a topic-fed watcher fires battery_below, rate-limited', async () => {
    const c = await open();
    double.robot.battery = 0.5;
    const started = await c.json<Info>('watch_battery', {
      triggers: [{ type: 'battery_below', percent: 30 }],
    });
    await waitFor('battery progress', () => c.events(started.task_id).some((e) => e.type === 'progress'));
    double.robot.battery = 0.25;
    await waitFor('battery_below to fire', () =>
      c.events(started.task_id).some((e) => e.type === 'trigger_fired'),
    );
    const fired = c.events(started.task_id).find((e) => e.type === 'trigger_fired')!;
    expect(fired.payload).toEqual({ trigger: { type: 'battery_below', percent: 30 }, battery_pct: 25 });
    // the double sends a battery message every 10 ms; the watcher reports at most one per 100 ms
    const since = Date.now();
    const progressBefore = c.events(started.task_id).filter((e) => e.type === 'progress').length;
    const sentBefore = double.delivered.get('/battery_state') ?? 0;
    await until(
      () => (double.delivered.get('/battery_state') ?? 0) >= sentBefore + 40,
      '40 more battery messages',
    );
    const reported = c.events(started.task_id).filter((e) => e.type === 'progress').length - progressBefore;
    expect(reported).toBeLessThanOrEqual(Math.ceil((Date.now() - since) / 100) + 1);
    expect(reported).toBeLessThan(40);
    await c.json('cancel_task', { task_id: started.task_id });
  });

  it('publishing only from actuating tools', async () => {
    const c = await open();
    const sneaky = await ended(c, (await c.json<Info>('sneaky_publish')).task_id);
    expect(sneaky.failure?.error_code).toBe('ROS_PUBLISH_REFUSED');
    const creep = await ended(c, (await c.json<Info>('creep')).task_id);
    expect(creep.state).toBe('succeeded');
    await waitFor('the Twist', () => double.published.get('/cmd_vel')?.length === 1);
    expect(double.published.get('/cmd_vel')).toEqual([
      { linear: { x: 0.1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } },
    ]);
  });

  it('the e-stop cancels every goal and publishes the stop message; read-only mode offers it', async () => {
    const c = await open();
    const a = await c.json<Info>('go', { x: 500, y: 0 });
    await until(() => double.activeGoals === 1, 'the goal to run');
    const readOnly = await open({ readOnly: true });
    const names = (await readOnly.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('emergency_stop');
    expect(names).not.toContain('go');
    const report = await readOnly.json<{ stop_published: boolean; cancelled_goals: { task_id: string }[] }>(
      'emergency_stop',
    );
    expect(report.stop_published).toBe(true);
    expect(report.cancelled_goals.map((g) => g.task_id)).toEqual([a.task_id]);
    await waitFor('the zero Twist', () => double.published.get('/cmd_vel')?.length === 1);
    expect(double.published.get('/cmd_vel')![0]).toEqual({
      linear: { x: 0, y: 0, z: 0 },
      angular: { x: 0, y: 0, z: 0 },
    });
    await until(() => double.activeGoals === 0, 'the double to cancel the goal');
    const info = await waitFor('the goal task to end', async () => {
      const t = await taskOf(c, a.task_id);
      return t.state !== 'running' ? t : undefined;
    });
    expect(info.state).toBe('cancelled');
  });
});
