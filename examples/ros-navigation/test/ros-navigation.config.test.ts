import { rosNavigationConfigFromEnv } from '../src/ros-navigation.config.js';

describe('rosNavigationConfigFromEnv', () => {
  it("defaults to Nav2's and a TurtleBot 4's names", () => {
    expect(rosNavigationConfigFromEnv({})).toEqual({
      navigateAction: '/navigate_to_pose',
      batteryTopic: '/battery_state',
      dockService: '/dock',
      cmdVelTopic: '/cmd_vel',
    });
    expect(rosNavigationConfigFromEnv({ ROS_CMD_VEL_TOPIC: '/robot1/cmd_vel' }).cmdVelTopic).toBe(
      '/robot1/cmd_vel',
    );
  });

  it('refuses a name that is not an absolute ROS name, naming the variable and an example', () => {
    expect(() => rosNavigationConfigFromEnv({ ROS_BATTERY_TOPIC: 'battery state' })).toThrow(
      'ROS_BATTERY_TOPIC: "battery state" is not a ROS name; use an absolute name such as /battery_state',
    );
  });
});
