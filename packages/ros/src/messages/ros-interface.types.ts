/**
 * A ROS 2 action declared for TypeScript: its rosbridge type string and, as phantom types, the
 * goal, feedback and result messages. Declare one with {@link rosAction}.
 */
export interface RosActionType<Goal extends object, Feedback extends object, Result extends object> {
  /** e.g. `nav2_msgs/action/NavigateToPose` */
  readonly type: string;
  /** Phantom members: never set, they carry the message types. */
  readonly __goal?: Goal;
  readonly __feedback?: Feedback;
  readonly __result?: Result;
}

/** A ROS 2 service declared for TypeScript (request and response as phantom types). */
export interface RosServiceType<Request extends object, Response extends object> {
  /** e.g. `std_srvs/srv/Trigger` */
  readonly type: string;
  readonly __request?: Request;
  readonly __response?: Response;
}

/** A ROS 2 message type declared for TypeScript (the message as a phantom type). */
export interface RosMessageType<Message extends object> {
  /** e.g. `sensor_msgs/msg/BatteryState` */
  readonly type: string;
  readonly __message?: Message;
}

function checkedType(type: string, kind: 'action' | 'srv' | 'msg'): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*\/(?:[a-z]+\/)?[A-Z][A-Za-z0-9_]*$/.test(type)) {
    throw new TypeError(
      `type: expected a ROS 2 interface name such as "pkg/${kind}/Name", got ${JSON.stringify(type)}`,
    );
  }
  return type;
}

/** Declares an action of your own: `rosAction<MyGoal, MyFeedback, MyResult>('my_pkg/action/Dock')`. */
export function rosAction<Goal extends object, Feedback extends object, Result extends object>(
  type: string,
): RosActionType<Goal, Feedback, Result> {
  return Object.freeze({ type: checkedType(type, 'action') });
}

/** Declares a service of your own: `rosService<MyRequest, MyResponse>('my_pkg/srv/Dock')`. */
export function rosService<Request extends object, Response extends object>(
  type: string,
): RosServiceType<Request, Response> {
  return Object.freeze({ type: checkedType(type, 'srv') });
}

/** Declares a message of your own: `rosMessage<MyState>('my_pkg/msg/State')`. */
export function rosMessage<Message extends object>(type: string): RosMessageType<Message> {
  return Object.freeze({ type: checkedType(type, 'msg') });
}
