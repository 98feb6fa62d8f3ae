import { rosAction, rosMessage, rosService } from './ros-interface.types.js';

/** builtin_interfaces/Time and Duration */
export interface RosTime {
  sec: number;
  nanosec: number;
}
export type RosDuration = RosTime;

/** std_msgs/Header */
export interface Header {
  stamp?: RosTime;
  frame_id: string;
}

/** geometry_msgs/Point, Vector3 and Quaternion */
export interface Point {
  x: number;
  y: number;
  z: number;
}
export type Vector3 = Point;
export interface Quaternion {
  x: number;
  y: number;
  z: number;
  w: number;
}

/** geometry_msgs/Pose */
export interface Pose {
  position: Point;
  orientation: Quaternion;
}

/** geometry_msgs/PoseStamped */
export interface PoseStamped {
  header: Header;
  pose: Pose;
}

/** geometry_msgs/Twist */
export interface Twist {
  linear: Vector3;
  angular: Vector3;
}

export const GEOMETRY_MSGS = Object.freeze({
  Pose: rosMessage<Pose>('geometry_msgs/msg/Pose'),
  PoseStamped: rosMessage<PoseStamped>('geometry_msgs/msg/PoseStamped'),
  Twist: rosMessage<Twist>('geometry_msgs/msg/Twist'),
});

/** A zero `geometry_msgs/Twist`: the usual stop message on `/cmd_vel`. */
export const ZERO_TWIST: Twist = Object.freeze({
  linear: Object.freeze({ x: 0, y: 0, z: 0 }),
  angular: Object.freeze({ x: 0, y: 0, z: 0 }),
});

/** nav2_msgs/action/NavigateToPose goal */
export interface NavigateToPoseGoal {
  pose: PoseStamped;
  behavior_tree?: string;
}
/** nav2_msgs/action/NavigateToPose feedback */
export interface NavigateToPoseFeedback {
  current_pose: PoseStamped;
  navigation_time: RosDuration;
  estimated_time_remaining: RosDuration;
  number_of_recoveries: number;
  distance_remaining: number;
}
/** nav2_msgs/action/NavigateToPose result (Nav2 Jazzy: an error code and message) */
export interface NavigateToPoseResult {
  error_code?: number;
  error_msg?: string;
}

export const NAV2_MSGS = Object.freeze({
  NavigateToPose: rosAction<NavigateToPoseGoal, NavigateToPoseFeedback, NavigateToPoseResult>(
    'nav2_msgs/action/NavigateToPose',
  ),
});

/** std_srvs/Trigger */
export interface TriggerRequest {
  [key: string]: never;
}
export interface TriggerResponse {
  success: boolean;
  message: string;
}
/** std_srvs/SetBool */
export interface SetBoolRequest {
  data: boolean;
}
export type SetBoolResponse = TriggerResponse;

export const STD_SRVS = Object.freeze({
  Trigger: rosService<TriggerRequest, TriggerResponse>('std_srvs/srv/Trigger'),
  SetBool: rosService<SetBoolRequest, SetBoolResponse>('std_srvs/srv/SetBool'),
});

/** sensor_msgs/BatteryState (the fields most robots fill) */
export interface BatteryState {
  header?: Header;
  voltage: number;
  current?: number;
  charge?: number;
  capacity?: number;
  /** 0..1 (not percent) */
  percentage: number;
  power_supply_status?: number;
  present?: boolean;
}

export const SENSOR_MSGS = Object.freeze({
  BatteryState: rosMessage<BatteryState>('sensor_msgs/msg/BatteryState'),
});

/** Seconds of a builtin_interfaces/Duration. */
export function durationSeconds(duration: RosDuration | undefined): number | undefined {
  if (!duration || typeof duration.sec !== 'number') return undefined;
  return duration.sec + (typeof duration.nanosec === 'number' ? duration.nanosec / 1e9 : 0);
}

/** A builtin_interfaces/Duration from seconds. */
export function secondsToDuration(seconds: number): RosDuration {
  const sec = Math.max(0, Math.floor(seconds));
  return { sec, nanosec: Math.round((Math.max(0, seconds) - sec) * 1e9) };
}
