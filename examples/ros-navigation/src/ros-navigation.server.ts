import {
  CapabilityServer,
  type JsonObject,
  LongRunningTool,
  NoArgs,
  type TaskContext,
  Tool,
  type ToolCallContext,
} from '@robot-mcp-kit/server';
import {
  type BatteryState,
  durationSeconds,
  GEOMETRY_MSGS,
  NAV2_MSGS,
  type NavigateToPoseFeedback,
  RosActionTool,
  rosEmergencyStop,
  type RoslibRosConnection,
  SENSOR_MSGS,
  STD_SRVS,
  watchRosTopic,
  ZERO_TWIST,
} from '@robot-mcp-kit/ros';
import { NavigateToPoseArgs } from './ros-navigation.args.js';
import { type RosNavigationConfig, rosNavigationConfigFromEnv } from './ros-navigation.config.js';

const percentOf = (battery: BatteryState): number => Math.round(battery.percentage * 1000) / 10;

/**
 * A ROS 2 Nav2 robot behind MCP through rosbridge: Nav2's NavigateToPose action as a long-running
 * tool (eta_below and battery_below fire from its progress), the battery topic, the dock service and
 * an e-stop that read-only mode keeps.
 */
@CapabilityServer({
  name: 'ros-navigation',
  version: '0.1.0',
  title: 'ROS 2 navigation',
  description: 'A ROS 2 robot running Nav2, reached through rosbridge',
  instructions:
    'navigate_to_pose starts a drive and returns its task_id at once; progress {eta_s, distance_m, x, y, ' +
    'battery_pct}, triggers ({"type": "eta_below", "seconds": N}, {"type": "battery_below", "percent": P}) ' +
    'and the outcome arrive as events. Stop everything with emergency_stop; cancel one drive with cancel_task.',
})
export class RosNavigationServer {
  private battery: BatteryState | undefined;

  constructor(
    readonly ros: RoslibRosConnection,
    readonly config: RosNavigationConfig = rosNavigationConfigFromEnv(),
  ) {
    ros.subscribe(config.batteryTopic, SENSOR_MSGS.BatteryState, (m) => (this.battery = m), {
      minIntervalMs: 250,
    });
  }

  @RosActionTool({
    description:
      "Drive to a pose on the map with Nav2's NavigateToPose. Returns a task_id at once; progress " +
      '{eta_s, distance_m, x, y, battery_pct} follows the action feedback. Supports triggers ' +
      '{"type": "eta_below", "seconds": N} and {"type": "battery_below", "percent": P}. Fails with ' +
      'ROS_GOAL_ABORTED, ROS_GOAL_REJECTED or ROS_DISCONNECTED. A new drive replaces a running one.',
    args: NavigateToPoseArgs,
    annotations: { title: 'Drive to a pose', idempotentHint: false, openWorldHint: true },
    maxConcurrent: 1,
    preempt: true,
  })
  async navigateToPose(args: NavigateToPoseArgs, ctx: TaskContext): Promise<JsonObject> {
    const yaw = args.yaw ?? 0;
    const goal = {
      pose: {
        header: { frame_id: args.frame_id ?? 'map' },
        pose: {
          position: { x: args.x, y: args.y, z: 0 },
          orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) },
        },
      },
    };
    return this.ros.runAction(this.config.navigateAction, NAV2_MSGS.NavigateToPose, goal, ctx, {
      progress: (f) => this.progressOf(f),
      result: (r) => ({ arrived: (r.error_code ?? 0) === 0, x: args.x, y: args.y }),
    });
  }

  private progressOf(feedback: NavigateToPoseFeedback): JsonObject {
    const position = feedback.current_pose?.pose?.position;
    return {
      eta_s: durationSeconds(feedback.estimated_time_remaining) ?? 0,
      distance_m: feedback.distance_remaining,
      ...(position ? { x: position.x, y: position.y } : {}),
      ...(this.battery ? { battery_pct: percentOf(this.battery) } : {}),
    };
  }

  @Tool({
    description:
      'The last battery reading from the battery topic: {percent, voltage, charging, known}; known is ' +
      'false until the first message arrived.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  getBattery(): JsonObject {
    const b = this.battery;
    if (!b) return { known: false, connected: this.ros.isConnected };
    return { known: true, percent: percentOf(b), voltage: b.voltage, charging: b.power_supply_status === 1 };
  }

  @LongRunningTool({
    description:
      'Watch the battery topic: reports {battery_pct} as progress (at most once a second) until ' +
      'cancelled. Supports {"type": "battery_below", "percent": P}.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  async watchBattery(_args: NoArgs, ctx: TaskContext): Promise<JsonObject> {
    return watchRosTopic(this.ros, this.config.batteryTopic, SENSOR_MSGS.BatteryState, ctx, {
      progress: (m) => ({ battery_pct: percentOf(m) }),
    });
  }

  @Tool({
    description: 'Dock the robot on its charger (the dock service). Returns {success, message}.',
    actuates: true,
    annotations: { title: 'Dock', idempotentHint: true, openWorldHint: true },
  })
  async dock(): Promise<JsonObject> {
    return { ...(await this.ros.callService(this.config.dockService, STD_SRVS.Trigger, {})) };
  }

  @Tool({
    description:
      'Emergency stop: publishes a zero Twist, cancels every goal this server sent and every running ' +
      'task. Returns {stop_published, cancelled_goals, stopped_tasks}. Always offered, also read-only.',
    annotations: {
      title: 'Emergency stop',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    },
  })
  async emergencyStop(_args: NoArgs, ctx: ToolCallContext): Promise<JsonObject> {
    const report = await rosEmergencyStop(this.ros, ctx.tasks, {
      topic: this.config.cmdVelTopic,
      type: GEOMETRY_MSGS.Twist,
      message: ZERO_TWIST,
    });
    return { ...report };
  }
}
