import {
  type TaskContext,
  CapabilityServer,
  LongRunningTool,
  NoArgs,
  Tool,
  type ToolCallContext,
} from '@robot-mcp-kit/server';
import { NavigateArgs, SetDoorArgs } from './navigation.args.js';
import { type NavigationConfig, navigationConfigFromEnv } from './navigation.config.js';
import { UnknownDoorError } from './navigation.error.js';
import { type NavigationResult, type Pose, SimulatedRobot } from './simulated-robot.js';
import { SiteMap } from './site-map.js';

/**
 * A simulated robot base. `navigate_to` drives a route of waypoints in (simulated) time, reporting
 * `{eta_s, distance_m, percent, zone, x, y}` every tick; `eta_below` and `zone_entered` triggers fire
 * through the built-in plugins — the body only reports progress.
 */
@CapabilityServer({
  name: 'navigation',
  version: '0.1.0',
  title: 'Navigation',
  description: 'A simulated robot base that drives between named places',
  instructions:
    'navigate_to starts a drive and returns its task_id at once; progress, triggers ' +
    '({"type": "eta_below", "seconds": N}, {"type": "zone_entered", "zone": "kitchen"}) and the outcome ' +
    'arrive as events. Follow a drive with get_task, stop it with stop (it latches: call rearm before the next drive) or cancel_task. get_map lists the goals.',
})
export class NavigationServer {
  readonly robot: SimulatedRobot;

  /** Configuration comes from the environment (NAV_SPEED_MPS, ...) unless given. */
  constructor(config: NavigationConfig = navigationConfigFromEnv(), map: SiteMap = new SiteMap()) {
    this.robot = new SimulatedRobot(map, config);
  }

  @LongRunningTool({
    description:
      'Drive the robot to a named place of the map. Returns a task_id immediately; progress ' +
      '{eta_s, distance_m, percent, zone, x, y} is reported while driving. Supports triggers ' +
      '{"type": "eta_below", "seconds": N} and {"type": "zone_entered", "zone": Z}. Fails with UNKNOWN_GOAL ' +
      'or DOOR_CLOSED. A new navigate_to replaces a running one.',
    args: NavigateArgs,
    actuates: true,
    annotations: { title: 'Drive to a place', idempotentHint: false, openWorldHint: true },
    maxConcurrent: 1,
    preempt: true,
  })
  async navigateTo(args: NavigateArgs, ctx: TaskContext): Promise<NavigationResult> {
    return this.robot.navigate(args.goal, ctx);
  }

  @Tool({
    description: 'Where the robot is now: {x, y, zone, moving, goal, task_id}.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  getPose(): Pose {
    return this.robot.pose();
  }

  @Tool({
    description: 'The map: goals navigate_to accepts, zones, and doors with their state (open or closed).',
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  getMap(): { goals: string[]; zones: string[]; doors: Record<string, 'open' | 'closed'> } {
    const { map } = this.robot;
    return { goals: map.goals, zones: map.zones, doors: this.robot.doors() };
  }

  @Tool({
    description:
      'Stop the robot now and latch the e-stop: cancels the running navigation (its task ends cancelled) ' +
      'and returns {stopped, task_id, goal, pose}; {stopped: false} when the robot was not moving. Until ' +
      'rearm is called, navigate_to is refused with ESTOPPED.',
    estop: true,
    annotations: {
      title: 'Stop the robot',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    },
  })
  async stop(_args: NoArgs, ctx: ToolCallContext): Promise<Record<string, unknown>> {
    const { goal } = this.robot.pose();
    // ctx.tasks controls this server's tasks: cancel every running navigate_to, whoever started it.
    const [cancelled] = await ctx.tasks.cancelAll({ tool: 'navigate_to' });
    const pose = this.robot.pose();
    if (!cancelled) return { stopped: false, pose };
    return {
      stopped: true,
      task_id: cancelled.task_id,
      goal,
      pose,
      ...(cancelled.body_running ? { body_running: true } : {}),
    };
  }

  @Tool({
    description:
      'Release the e-stop latched by stop, once the robot is safe to move again: navigate_to is accepted ' +
      'again. Needs the robot:rearm scope when the server checks scopes.',
    rearm: true,
    annotations: {
      title: 'Re-arm after a stop',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
  })
  rearm(): { armed: true } {
    return { armed: true };
  }

  @Tool({
    description:
      'Simulation control: open or close a door of the simulated site. A closed door on the route makes ' +
      'navigate_to fail with DOOR_CLOSED.',
    args: SetDoorArgs,
    confirm: 'Set door {door} to open={open}?',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })
  setDoor(args: SetDoorArgs): { door: string; state: 'open' | 'closed' } {
    if (!this.robot.setDoor(args.door, args.open))
      throw new UnknownDoorError(args.door, this.robot.map.doors);
    return { door: args.door, state: args.open ? 'open' : 'closed' };
  }
}
