import { ConfigError } from '@robot-mcp-kit/server';

/** Where the robot's interfaces are (Nav2 and TurtleBot 4 defaults). */
export interface RosNavigationConfig {
  /** `ROS_NAV_ACTION`, default `/navigate_to_pose` */
  readonly navigateAction: string;
  /** `ROS_BATTERY_TOPIC`, default `/battery_state` */
  readonly batteryTopic: string;
  /** `ROS_DOCK_SERVICE` (a std_srvs/srv/Trigger), default `/dock` */
  readonly dockService: string;
  /** `ROS_CMD_VEL_TOPIC`, where the e-stop publishes a zero Twist, default `/cmd_vel` */
  readonly cmdVelTopic: string;
}

const NAME = /^\/[A-Za-z_][A-Za-z0-9_/]{0,127}$/;

function rosName(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  if (!NAME.test(raw)) {
    throw new ConfigError(variable, `"${raw}" is not a ROS name; use an absolute name such as ${fallback}`);
  }
  return raw;
}

/** Reads `ROS_NAV_ACTION`, `ROS_BATTERY_TOPIC`, `ROS_DOCK_SERVICE` and `ROS_CMD_VEL_TOPIC`. */
export function rosNavigationConfigFromEnv(env: NodeJS.ProcessEnv = process.env): RosNavigationConfig {
  return {
    navigateAction: rosName(env, 'ROS_NAV_ACTION', '/navigate_to_pose'),
    batteryTopic: rosName(env, 'ROS_BATTERY_TOPIC', '/battery_state'),
    dockService: rosName(env, 'ROS_DOCK_SERVICE', '/dock'),
    cmdVelTopic: rosName(env, 'ROS_CMD_VEL_TOPIC', '/cmd_vel'),
  };
}
