import { Action, Ros, Service, Topic } from 'roslib';
import {
  type BatteryState,
  type NavigateToPoseFeedback,
  type NavigateToPoseGoal,
  type NavigateToPoseResult,
  type TriggerResponse,
} from '../src/index.js';
import { type RosbridgeDouble, startRosbridgeDouble } from '../src/testing/index.js';
import { until, waitFor } from '../../../test/support/until.js';

// The double speaks what the real roslib client speaks: every exchange here goes through roslib's
// public API over a real WebSocket, and each answer is the one ROSBRIDGE_PROTOCOL.md describes.

const goalTo = (x: number, y: number): NavigateToPoseGoal => ({
  pose: {
    header: { frame_id: 'map' },
    pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
  },
});

describe('RosbridgeDouble with the real roslib client', () => {
  let double: RosbridgeDouble;
  let ros: Ros;

  beforeEach(async () => {
    double = await startRosbridgeDouble({ speedMps: 4, feedbackIntervalMs: 20, batteryIntervalMs: 20 });
    ros = new Ros({});
    const open = new Promise((resolve) => ros.once('connection', resolve));
    await ros.connect(double.url);
    await open;
  });

  afterEach(async () => {
    ros.close();
    await double.stop();
  });

  const navigate = () =>
    new Action<NavigateToPoseGoal, NavigateToPoseFeedback, NavigateToPoseResult>({
      ros,
      name: '/navigate_to_pose',
      actionType: 'nav2_msgs/action/NavigateToPose',
    });

  it('runs a NavigateToPose goal to SUCCEEDED with feedback', async () => {
    const feedback: NavigateToPoseFeedback[] = [];
    const result = await new Promise<NavigateToPoseResult>((resolve, reject) => {
      navigate().sendGoal(goalTo(1, 0), resolve, (f) => feedback.push(f), reject);
    });
    expect(result).toEqual({ error_code: 0, error_msg: '' });
    expect(feedback.length).toBeGreaterThan(3);
    const etas = feedback.map(
      (f) => f.estimated_time_remaining.sec + f.estimated_time_remaining.nanosec / 1e9,
    );
    expect(etas[0]).toBeGreaterThan(etas[etas.length - 1]!);
    expect(double.robot.x).toBeCloseTo(1, 6);
  });

  it('cancel_action_goal ends the goal CANCELED, rejection and abort fail it', async () => {
    const action = navigate();
    let id: string | undefined;
    const cancelled = new Promise<string>((resolve) => {
      id = action.sendGoal(goalTo(100, 0), () => resolve('succeeded'), undefined, resolve);
    });
    await until(() => double.activeGoals === 1, 'the goal to be driven');
    action.cancelGoal(id!);
    expect(await cancelled).toMatch(/canceled/i);
    expect(double.received.some((m) => m.op === 'cancel_action_goal' && m.id === id)).toBe(true);

    double.faults.rejectGoals = true;
    const rejected = await new Promise<string>((resolve) =>
      action.sendGoal(goalTo(1, 1), () => resolve('ok'), undefined, resolve),
    );
    expect(rejected).toMatch(/rejected/);

    double.faults.rejectGoals = false;
    double.faults.abortAfterFeedbacks = 2;
    const aborted = await new Promise<string>((resolve) =>
      action.sendGoal(goalTo(50, 1), () => resolve('ok'), undefined, resolve),
    );
    expect(aborted).toMatch(/aborted/i);
  });

  it('answers the dock service, and says when a service does not exist', async () => {
    const dock = new Service<object, TriggerResponse>({
      ros,
      name: '/dock',
      serviceType: 'std_srvs/srv/Trigger',
    });
    const answer = await new Promise<TriggerResponse>((resolve, reject) =>
      dock.callService({}, resolve, reject),
    );
    expect(answer).toEqual({ success: true, message: 'docked' });
    const missing = new Service<object, object>({ ros, name: '/nope', serviceType: 'std_srvs/srv/Trigger' });
    const error = await new Promise<string>((resolve) =>
      missing.callService({}, () => resolve('answered'), resolve),
    );
    expect(error).toBe('Service /nope does not exist');
  });

  it('publishes the battery topic and records what the client publishes', async () => {
    const battery = new Topic<BatteryState>({
      ros,
      name: '/battery_state',
      messageType: 'sensor_msgs/msg/BatteryState',
    });
    const message = await new Promise<BatteryState>((resolve) => battery.subscribe(resolve));
    expect(message.percentage).toBeCloseTo(0.9, 6);
    battery.unsubscribe();
    const cmdVel = new Topic<object>({ ros, name: '/cmd_vel', messageType: 'geometry_msgs/msg/Twist' });
    cmdVel.publish({ linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } });
    await waitFor('the Twist to reach the double', () => double.published.get('/cmd_vel')?.length === 1);
  });

  it('answers an unknown op with an error status carrying its id', async () => {
    const status = new Promise<{ level: string; msg: string }>((resolve) =>
      ros.once('status:x-1', (message) => resolve(message as unknown as { level: string; msg: string })),
    );
    ros.callOnConnection({ op: 'frobnicate', id: 'x-1' } as never);
    const answer = await status;
    expect(answer.level).toBe('error');
    expect(answer.msg).toMatch(/^Unknown operation: frobnicate/);
  });

  it('drops the socket mid-goal and serves again after a restart', async () => {
    double.faults.dropAfterFeedbacks = 2;
    const closed = new Promise((resolve) => ros.once('close', resolve));
    navigate().sendGoal(
      goalTo(100, 0),
      () => undefined,
      undefined,
      () => undefined,
    );
    await closed;
    expect(ros.isConnected).toBe(false);
    await double.restart();
    const open = new Promise((resolve) => ros.once('connection', resolve));
    await ros.connect(double.url);
    await open;
    expect(double.clients).toBe(1);
  });
});
