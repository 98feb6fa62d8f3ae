/** The ops rosbridge v2 accepts from a client (ROSBRIDGE_PROTOCOL.md §3), as the double answers them. */
export const ROSBRIDGE_CLIENT_OPS = Object.freeze([
  'set_level',
  'advertise',
  'unadvertise',
  'publish',
  'subscribe',
  'unsubscribe',
  'call_service',
  'send_action_goal',
  'cancel_action_goal',
] as const);

/** The fault switches; each can be flipped while the double runs. */
export interface RosbridgeFaults {
  /** Reject every goal (rosbridge: `action_result` with `result: false`, status UNKNOWN). */
  rejectGoals: boolean;
  /** Abort a goal after this many feedback messages (status ABORTED). */
  abortAfterFeedbacks: number | undefined;
  /** Close every client socket after this many feedback messages of a goal (drop mid-goal). */
  dropAfterFeedbacks: number | undefined;
  /** Wait this long before confirming a cancel with CANCELED (the robot still brakes). */
  cancelDelayMs: number;
  /** Leave `/dock` unadvertised: calls get "Service /dock does not exist". */
  dockMissing: boolean;
}

/** A rosbridge protocol message as received (JSON). */
export type RosbridgeMessage = Record<string, unknown> & { op?: unknown; id?: unknown };
