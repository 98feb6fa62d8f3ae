/**
 * Test support of `@robot-mcp-kit/ros`: a rosbridge v2 server double with a simulated Nav2 robot.
 *
 * @packageDocumentation
 */
export { RosbridgeDouble, startRosbridgeDouble, ROSBRIDGE_CLIENT_OPS } from './rosbridge-double.js';
export type { RosbridgeDoubleOptions, RosbridgeFaults, RosbridgeMessage } from './rosbridge-double.js';
export { SimulatedNav2Robot } from './simulated-nav2-robot.js';
export type { DrivingGoal, SimulatedRobotOptions } from './simulated-nav2-robot.js';
