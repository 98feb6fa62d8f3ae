import { LongRunningTool, type LongRunningToolArgs } from '@robot-mcp-kit/server';

/**
 * `@LongRunningTool` for a method whose body runs a ROS action (`connection.runAction(...)`):
 * `actuates: true` unless you say otherwise, since an action moves the robot. It records the
 * kit's metadata only.
 */
export function RosActionTool(args: LongRunningToolArgs): MethodDecorator {
  return LongRunningTool({ ...args, actuates: args.actuates ?? true });
}
