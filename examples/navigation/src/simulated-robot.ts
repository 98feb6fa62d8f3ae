import { TaskError, type TaskContext } from '@robot-mcp-kit/server';
import { type NavigationConfig } from './navigation.config.js';
import { distance, type Point, type RouteStep, type SiteMap } from './site-map.js';

/** What `get_pose` returns. */
export type Pose = {
  x: number;
  y: number;
  zone: string;
  moving: boolean;
  /** The goal of the running navigation, or null. */
  goal: string | null;
  /** The task id of the running navigation, or null. */
  task_id: string | null;
};

/** The progress payload of a navigation, reported every tick. */
export type NavigationProgress = {
  eta_s: number;
  distance_m: number;
  percent: number;
  zone: string;
  x: number;
  y: number;
};

/** The result of a navigation that arrived (`task_done {"result": ...}`). */
export type NavigationResult = {
  arrived: true;
  goal: string;
  zone: string;
  x: number;
  y: number;
  distance_m: number;
  duration_s: number;
};

interface ActiveNavigation {
  readonly taskId: string;
  readonly goal: string;
}

/** Closer than this (metres) counts as arrived, so rounding never costs an extra tick. */
const EPSILON_M = 1e-9;

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * A simulated differential-drive robot on a {@link SiteMap}. Motion happens in time: every tick
 * (`ctx.sleep(tickMs)`) the pose advances `speedMps * tickMs` along the planned route and the
 * navigation reports its progress. Doors can be closed; a closed door on the route stops the robot
 * in front of it.
 */
export class SimulatedRobot {
  private position: Point;
  /** The waypoint the robot stands on, or both ends of the passage it is on. */
  private place: readonly string[];
  private readonly closedDoors: Set<string>;
  private active: ActiveNavigation | undefined;

  constructor(
    readonly map: SiteMap,
    readonly config: NavigationConfig,
  ) {
    const start = map.waypoint(config.start) ?? map.data.waypoints[0]!;
    this.position = { x: start.x, y: start.y };
    this.place = [start.name];
    this.closedDoors = new Set(config.closedDoors);
  }

  pose(): Pose {
    return {
      x: round(this.position.x),
      y: round(this.position.y),
      zone: this.map.zoneAt(this.position),
      moving: this.active !== undefined,
      goal: this.active?.goal ?? null,
      task_id: this.active?.taskId ?? null,
    };
  }

  /** Every door of the map with its state. */
  doors(): Record<string, 'open' | 'closed'> {
    return Object.fromEntries(this.map.doors.map((d) => [d, this.closedDoors.has(d) ? 'closed' : 'open']));
  }

  /** Opens or closes a door; false if the map has no such door. */
  setDoor(door: string, open: boolean): boolean {
    if (!this.map.doors.includes(door)) return false;
    if (open) this.closedDoors.delete(door);
    else this.closedDoors.add(door);
    return true;
  }

  /**
   * Drives to `goal`, reporting progress every tick, until it arrives (the result), meets a closed
   * door (`TaskError` DOOR_CLOSED) or its task is cancelled (`ctx.sleep` then throws
   * TaskCancelledError, and the robot stays where it is).
   * @throws TaskError UNKNOWN_GOAL when the map has no such goal
   */
  async navigate(goal: string, ctx: TaskContext): Promise<NavigationResult> {
    const route = this.map.route(this.position, goal, this.place);
    if (!route) {
      const goals = this.map.goals;
      throw new TaskError(
        'UNKNOWN_GOAL',
        `"${goal}" is not a goal on this map. Choose one of: ${goals.join(', ')}.`,
        {
          recoverable: true,
          suggestions: [`choose_one_of:${goals.join(',')}`],
        },
      );
    }
    const active: ActiveNavigation = { taskId: ctx.taskId, goal };
    this.active = active;
    try {
      return await this.drive(goal, route, ctx);
    } finally {
      if (this.active === active) this.active = undefined;
    }
  }

  private async drive(goal: string, route: RouteStep[], ctx: TaskContext): Promise<NavigationResult> {
    const { speedMps, tickMs } = this.config;
    const total = routeLength(this.position, route);
    let travelled = 0;
    let ticks = 0;
    let index = 0;
    let onWaypoint = this.place.length === 1;
    let previous = onWaypoint ? this.place[0] : undefined;
    let blockedBy: string | undefined;
    while (index < route.length && blockedBy === undefined) {
      await ctx.sleep(tickMs); // throws TaskCancelledError at once when the task is cancelled
      ticks += 1;
      let budget = (speedMps * tickMs) / 1000;
      while (budget > 0 && index < route.length) {
        const next = route[index]!;
        if (onWaypoint && next.door && this.closedDoors.has(next.door)) {
          blockedBy = next.door;
          break;
        }
        const gap = distance(this.position, next);
        if (gap <= budget + EPSILON_M) {
          this.position = { x: next.x, y: next.y };
          travelled += gap;
          budget = Math.max(0, budget - gap);
          index += 1;
          onWaypoint = true;
          previous = next.name;
          this.place = [next.name];
        } else {
          const f = budget / gap;
          this.position = {
            x: this.position.x + (next.x - this.position.x) * f,
            y: this.position.y + (next.y - this.position.y) * f,
          };
          travelled += budget;
          budget = 0;
          onWaypoint = false;
          if (previous !== undefined) this.place = [previous, next.name];
        }
      }
      await ctx.progress(this.progress(total, travelled));
    }
    if (route.length === 0) await ctx.progress(this.progress(total, travelled));
    if (blockedBy !== undefined) {
      throw new TaskError(
        'DOOR_CLOSED',
        `The door "${blockedBy}" on the way to ${goal} is closed; the robot is waiting in front of it in the ${this.map.zoneAt(this.position)}.`,
        { recoverable: true, suggestions: ['ask_reception', 'retry_after_s:300'] },
      );
    }
    return {
      arrived: true,
      goal,
      zone: this.map.zoneAt(this.position),
      x: round(this.position.x),
      y: round(this.position.y),
      distance_m: round(travelled),
      duration_s: round((ticks * tickMs) / 1000),
    };
  }

  private progress(total: number, travelled: number): NavigationProgress {
    const remaining = Math.max(0, total - travelled);
    return {
      eta_s: round(remaining / this.config.speedMps),
      distance_m: round(remaining),
      percent: total > 0 ? round((100 * travelled) / total, 1) : 100,
      zone: this.map.zoneAt(this.position),
      x: round(this.position.x),
      y: round(this.position.y),
    };
  }
}

function routeLength(from: Point, route: readonly RouteStep[]): number {
  let length = 0;
  let at = from;
  for (const step of route) {
    length += distance(at, step);
    at = step;
  }
  return length;
}
