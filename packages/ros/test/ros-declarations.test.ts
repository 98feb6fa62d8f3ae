import {
  durationSeconds,
  NAV2_MSGS,
  RoslibRosConnection,
  rosAction,
  rosMessage,
  rosService,
  secondsToDuration,
} from '../src/index.js';

describe('declaring ROS interfaces and connections', () => {
  it('accepts ROS 2 interface names and refuses others, naming the expected form', () => {
    expect(NAV2_MSGS.NavigateToPose.type).toBe('nav2_msgs/action/NavigateToPose');
    expect(rosAction('opennav_docking_msgs/action/DockRobot').type).toBe(
      'opennav_docking_msgs/action/DockRobot',
    );
    expect(rosService('std_srvs/srv/Empty').type).toBe('std_srvs/srv/Empty');
    expect(() => rosMessage('sensor_msgs/msg/battery state')).toThrow(
      'type: expected a ROS 2 interface name such as "pkg/msg/Name", got "sensor_msgs/msg/battery state"',
    );
    expect(() => rosAction('NavigateToPose')).toThrow(/"pkg\/action\/Name"/);
  });

  it('converts builtin_interfaces/Duration both ways', () => {
    expect(durationSeconds({ sec: 3, nanosec: 500_000_000 })).toBe(3.5);
    expect(durationSeconds(undefined)).toBeUndefined();
    expect(secondsToDuration(2.25)).toEqual({ sec: 2, nanosec: 250_000_000 });
  });

  it('fails fast on a URL that is not a WebSocket URL, naming ROSBRIDGE_URL', () => {
    expect(() => new RoslibRosConnection({ url: 'http://robot:9090' })).toThrow(
      'ROSBRIDGE_URL: expected rosbridge\'s WebSocket URL such as ws://127.0.0.1:9090, got "http://robot:9090"',
    );
    expect(() => new RoslibRosConnection({ url: 'ws://robot:9090', reconnectInitialMs: 0 })).toThrow(
      /^reconnectInitialMs: expected a positive number of milliseconds, got 0/,
    );
  });
});
