import {
  CapabilityServer,
  JSONSchema,
  type JsonObject,
  NoArgs,
  type TaskContext,
  Tool,
  type ToolCallContext,
} from '@robot-mcp-kit/server';
import { IsNumber, Max, Min } from 'class-validator';
import {
  type BatteryState,
  durationSeconds,
  GEOMETRY_MSGS,
  NAV2_MSGS,
  RosActionTool,
  rosEmergencyStop,
  type RoslibRosConnection,
  SENSOR_MSGS,
  ZERO_TWIST,
} from '@robot-mcp-kit/ros';

/** Arguments of `navigate_to_pose`: a point on the map. */
export class NavigateToPoseArgs {
  @JSONSchema({ description: 'Goal x in metres (map frame)' })
  @IsNumber()
  @Min(-1000)
  @Max(1000)
  x!: number;

  @JSONSchema({ description: 'Goal y in metres (map frame)' })
  @IsNumber()
  @Min(-1000)
  @Max(1000)
  y!: number;
}

/**
 * A ROS 2 robot behind MCP through rosbridge (docs/ros.md of robot-mcp-kit): Nav2's NavigateToPose
 * as a long-running tool, the battery topic, and an e-stop that --read-only keeps.
 */
@CapabilityServer({
  name: '{{name}}',
  version: '0.1.0',
  description: {{descriptionLiteral}},
})
export class {{className}} {
  private battery: BatteryState | undefined;

  constructor(readonly ros: RoslibRosConnection) {
    ros.subscribe('/battery_state', SENSOR_MSGS.BatteryState, (message) => (this.battery = message), {
      minIntervalMs: 250,
    });
  }

  // A ROS action moves the robot: @RosActionTool is actuates: true, hidden by --read-only.
  @RosActionTool({
    description:
      'Drive to (x, y) with Nav2. Returns a task_id at once; progress {eta_s, distance_m, battery_pct}. ' +
      'Supports {"type": "eta_below", "seconds": N} and {"type": "battery_below", "percent": P}.',
    args: NavigateToPoseArgs,
    maxConcurrent: 1,
    preempt: true,
  })
  async navigateToPose(args: NavigateToPoseArgs, ctx: TaskContext): Promise<JsonObject> {
    const pose = { position: { x: args.x, y: args.y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } };
    return this.ros.runAction('/navigate_to_pose', NAV2_MSGS.NavigateToPose, { pose: { header: { frame_id: 'map' }, pose } }, ctx, {
      progress: (feedback) => ({
        eta_s: durationSeconds(feedback.estimated_time_remaining) ?? 0,
        distance_m: feedback.distance_remaining,
        ...(this.battery ? { battery_pct: Math.round(this.battery.percentage * 1000) / 10 } : {}),
      }),
      result: (result) => ({ arrived: (result.error_code ?? 0) === 0 }),
    });
  }

  @Tool({
    description: 'The last battery reading: {known, percent, voltage}.',
    annotations: { readOnlyHint: true },
  })
  getBattery(): JsonObject {
    const b = this.battery;
    return b ? { known: true, percent: Math.round(b.percentage * 1000) / 10, voltage: b.voltage } : { known: false };
  }

  // Stopping is always allowed: not destructive, so --read-only still offers it.
  @Tool({
    description: 'Emergency stop: a zero Twist on /cmd_vel, then cancels every goal and task.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  })
  async emergencyStop(_args: NoArgs, ctx: ToolCallContext): Promise<JsonObject> {
    const report = await rosEmergencyStop(this.ros, ctx.tasks, {
      topic: '/cmd_vel',
      type: GEOMETRY_MSGS.Twist,
      message: ZERO_TWIST,
    });
    return { ...report };
  }
}
