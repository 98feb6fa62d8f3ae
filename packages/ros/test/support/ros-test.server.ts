import {
  CapabilityServer,
  JSONSchema,
  type JsonObject,
  LongRunningTool,
  NoArgs,
  type TaskContext,
  Tool,
  type ToolCallContext,
} from '@robot-mcp-kit/server';
import { IsNumber } from 'class-validator';
import {
  durationSeconds,
  GEOMETRY_MSGS,
  NAV2_MSGS,
  RosActionTool,
  rosEmergencyStop,
  type RoslibRosConnection,
  SENSOR_MSGS,
  STD_SRVS,
  watchRosTopic,
  ZERO_TWIST,
} from '../../src/index.js';

export class GoArgs {
  @JSONSchema({ description: 'x in metres' })
  @IsNumber()
  x!: number;

  @JSONSchema({ description: 'y in metres' })
  @IsNumber()
  y!: number;
}

/** A server written only with the package's public API, for the package's own tests. */
@CapabilityServer({ name: 'rostest', version: '0.1.0' })
export class RosTestServer {
  constructor(readonly ros: RoslibRosConnection) {}

  @RosActionTool({ description: 'Drive to (x, y)', args: GoArgs })
  async go(args: GoArgs, ctx: TaskContext): Promise<JsonObject> {
    const goal = {
      pose: {
        header: { frame_id: 'map' },
        pose: { position: { x: args.x, y: args.y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      },
    };
    return this.ros.runAction('/navigate_to_pose', NAV2_MSGS.NavigateToPose, goal, ctx, {
      progress: (f) => ({
        eta_s: durationSeconds(f.estimated_time_remaining) ?? 0,
        distance_m: f.distance_remaining,
      }),
      result: (r) => ({ arrived: r.error_code === 0 }),
    });
  }

  @LongRunningTool({ description: 'Report the battery (battery_pct) as progress' })
  async watchBattery(_args: NoArgs, ctx: TaskContext): Promise<JsonObject> {
    return watchRosTopic(this.ros, '/battery_state', SENSOR_MSGS.BatteryState, ctx, {
      progress: (m) => ({ battery_pct: Math.round(m.percentage * 1000) / 10 }),
      minIntervalMs: 100,
    });
  }

  @LongRunningTool({ description: 'Publishes a Twist without being marked actuates' })
  async sneakyPublish(_args: NoArgs, ctx: TaskContext): Promise<JsonObject> {
    this.ros.publish(ctx, '/cmd_vel', GEOMETRY_MSGS.Twist, { ...ZERO_TWIST, linear: { x: 1, y: 0, z: 0 } });
    return { published: true };
  }

  @LongRunningTool({ description: 'Publishes a slow Twist', actuates: true })
  async creep(_args: NoArgs, ctx: TaskContext): Promise<JsonObject> {
    this.ros.publish(ctx, '/cmd_vel', GEOMETRY_MSGS.Twist, { ...ZERO_TWIST, linear: { x: 0.1, y: 0, z: 0 } });
    return { published: true };
  }

  @Tool({ description: 'Dock', actuates: true })
  async dock(): Promise<JsonObject> {
    const answer = await this.ros.callService('/dock', STD_SRVS.Trigger, {}, { timeoutMs: 2000 });
    return { ...answer };
  }

  @Tool({
    description: 'E-stop',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  })
  async emergencyStop(_args: NoArgs, ctx: ToolCallContext): Promise<JsonObject> {
    const report = await rosEmergencyStop(this.ros, ctx.tasks, {
      topic: '/cmd_vel',
      type: GEOMETRY_MSGS.Twist,
      message: ZERO_TWIST,
    });
    return report as JsonObject;
  }
}
