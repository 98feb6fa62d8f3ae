import { callJson, type Harness, startServer, until } from './support/harness.js';

describe('{{className}} against a simulated ROS 2 robot', () => {
  const servers: Harness[] = [];
  const start = async (options: { readOnly?: boolean } = {}) => {
    const server = await startServer(options);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('drives to a pose: feedback becomes progress, eta_below fires once', async () => {
    const { client, app, events } = await start();
    const started = await callJson(client, 'navigate_to_pose', { x: 2, y: 0, triggers: [{ type: 'eta_below', seconds: 0.2 }] });
    let task: Record<string, unknown> = {};
    await until('the drive to end', async () => {
      task = await callJson(client, 'get_task', { task_id: started.task_id });
      return task.state !== 'running';
    });
    expect(task).toMatchObject({ state: 'succeeded', result: { arrived: true } });
    await app.poster.flush(5000);
    const types = events.events.filter((e) => e.task_id === started.task_id).map((e) => e.type);
    expect(types).toContain('progress');
    expect(types.filter((t) => t === 'trigger_fired')).toHaveLength(1);
  });

  it('cancel reaches the action server and the task ends cancelled', async () => {
    const { client, double } = await start();
    const started = await callJson(client, 'navigate_to_pose', { x: 500, y: 0 });
    await until('the goal at the action server', () => double.activeGoals === 1);
    expect(await callJson(client, 'cancel_task', { task_id: started.task_id })).toMatchObject({ state: 'cancelled' });
    await until('the action server to cancel', () => double.activeGoals === 0);
    expect(double.received.some((m) => m.op === 'cancel_action_goal')).toBe(true);
  });

  it('--read-only hides navigate_to_pose and keeps the e-stop, which publishes a zero Twist', async () => {
    const { client, double } = await start({ readOnly: true });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['emergency_stop', 'get_battery']));
    expect(names).not.toContain('navigate_to_pose');
    expect(await callJson(client, 'emergency_stop')).toMatchObject({ stop_published: true });
    await until('the zero Twist', () => (double.published.get('/cmd_vel') ?? []).length === 1);
  });
});
