/**
 * ROS 2 robots behind robot-mcp-kit tools through rosbridge, on the official `roslib` client:
 * actions as long-running tools, services as tools, topics as triggers and watchers, an e-stop.
 *
 * @packageDocumentation
 */
export { RoslibRosConnection } from './connection/roslib-ros.connection.js';
export type { RosSubscribeOptions, RosPublisherIdentity } from './connection/roslib-ros.connection.js';
export type { RosConnectionOptions } from './connection/ros-connection.options.js';
export { GOAL_STATUS } from './connection/ros-goal.js';
export type { RosActionMapping, InFlightGoal } from './connection/ros-goal.js';
export { RosActionTool } from './tools/ros-action-tool.decorator.js';
export { watchRosTopic } from './tools/ros-topic-watch.js';
export type { RosTopicWatchOptions } from './tools/ros-topic-watch.js';
export { batteryBelowTrigger } from './tools/battery-below.trigger.js';
export { rosEmergencyStop } from './safety/ros-emergency-stop.js';
export type { RosStopMessage, RosEmergencyStopReport } from './safety/ros-emergency-stop.js';
export { ROS_ERROR_CODES, RosError, RosPublishRefusedError } from './ros.error.js';
export { rosAction, rosMessage, rosService } from './messages/ros-interface.types.js';
export type { RosActionType, RosMessageType, RosServiceType } from './messages/ros-interface.types.js';
export * from './messages/common.messages.js';
