/** A point on the map, in metres. */
export type Point = { x: number; y: number };

/** A named, axis-aligned rectangle of the map: `minX <= x < maxX` and `minY <= y < maxY`. */
export interface Zone {
  readonly name: string;
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

/** A node of the route graph. Goals are the places `navigate_to` accepts. */
export interface Waypoint extends Point {
  readonly name: string;
  readonly goal: boolean;
}

/** A drivable connection between two waypoints, possibly through a door (which can be closed). */
export interface Passage {
  readonly from: string;
  readonly to: string;
  readonly door?: string;
}

/** The map: zones, waypoints and the passages between waypoints. */
export interface SiteMapData {
  readonly zones: readonly Zone[];
  readonly waypoints: readonly Waypoint[];
  readonly passages: readonly Passage[];
}

/**
 * One step of a planned route: the waypoint to drive to next, the zone it lies in and the door
 * on the way there, if any.
 */
export type RouteStep = Waypoint & { zone: string; door?: string };

/**
 * The default site: a dock, a lobby, a corridor, a kitchen off the corridor and a lab behind a
 * door at the far end of the corridor (`lab_door`, between the waypoints lab_entrance and lab).
 *
 * ```
 *   dock(0,0) — lobby(5,0) — corridor(10,0) — junction(20,0) — lab_entrance(25,0) =door= lab(31,0)
 *                                                  |
 *                                             kitchen(20,6)
 * ```
 */
export const DEFAULT_SITE: SiteMapData = {
  zones: [
    { name: 'dock', minX: -4, minY: -4, maxX: 2, maxY: 4 },
    { name: 'lobby', minX: 2, minY: -4, maxX: 8, maxY: 4 },
    { name: 'kitchen', minX: 16, minY: 2, maxX: 24, maxY: 10 },
    { name: 'corridor', minX: 8, minY: -2, maxX: 26, maxY: 2 },
    { name: 'lab', minX: 26, minY: -5, maxX: 36, maxY: 5 },
  ],
  waypoints: [
    { name: 'dock', x: 0, y: 0, goal: true },
    { name: 'lobby', x: 5, y: 0, goal: true },
    { name: 'corridor', x: 10, y: 0, goal: true },
    { name: 'junction', x: 20, y: 0, goal: false },
    { name: 'kitchen', x: 20, y: 6, goal: true },
    { name: 'lab_entrance', x: 25, y: 0, goal: false },
    { name: 'lab', x: 31, y: 0, goal: true },
  ],
  passages: [
    { from: 'dock', to: 'lobby' },
    { from: 'lobby', to: 'corridor' },
    { from: 'corridor', to: 'junction' },
    { from: 'junction', to: 'kitchen' },
    { from: 'junction', to: 'lab_entrance' },
    { from: 'lab_entrance', to: 'lab', door: 'lab_door' },
  ],
};

export const OUTSIDE_ZONE = 'outside';

export function distance(a: Point, b: Point): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

/** Queries over a {@link SiteMapData}: zones of points, goals, doors and shortest routes. */
export class SiteMap {
  private readonly byName = new Map<string, Waypoint>();
  private readonly neighbours = new Map<string, { name: string; door?: string }[]>();

  constructor(readonly data: SiteMapData = DEFAULT_SITE) {
    for (const waypoint of data.waypoints) {
      this.byName.set(waypoint.name, waypoint);
      this.neighbours.set(waypoint.name, []);
    }
    for (const { from, to, door } of data.passages) {
      this.neighbours.get(from)?.push({ name: to, door });
      this.neighbours.get(to)?.push({ name: from, door });
    }
  }

  /** The goals `navigate_to` accepts, in map order. */
  get goals(): string[] {
    return this.data.waypoints.filter((w) => w.goal).map((w) => w.name);
  }

  /** The doors of the map. */
  get doors(): string[] {
    return this.data.passages.flatMap((p) => (p.door ? [p.door] : []));
  }

  get zones(): string[] {
    return this.data.zones.map((z) => z.name);
  }

  waypoint(name: string): Waypoint | undefined {
    return this.byName.get(name);
  }

  /** The first zone containing the point, or {@link OUTSIDE_ZONE}. */
  zoneAt(point: Point): string {
    const zone = this.data.zones.find(
      (z) => point.x >= z.minX && point.x < z.maxX && point.y >= z.minY && point.y < z.maxY,
    );
    return zone?.name ?? OUTSIDE_ZONE;
  }

  /**
   * The shortest route from a point to a goal along the passages. `starts` are the waypoints the
   * robot can drive to first: the one it stands on, or both ends of the passage it is on. The
   * first step is skipped when the point is on it. Undefined when the goal is unknown or unreachable.
   */
  route(from: Point, goal: string, starts: readonly string[]): RouteStep[] | undefined {
    if (!this.byName.get(goal)?.goal) return undefined;
    const { cost, next } = this.costsTo(goal);
    let start: Waypoint | undefined;
    let best = Infinity;
    for (const name of starts) {
      const waypoint = this.byName.get(name);
      const rest = cost.get(name);
      if (!waypoint || rest === undefined) continue;
      const total = distance(from, waypoint) + rest;
      if (total < best - 1e-9) {
        best = total;
        start = waypoint;
      }
    }
    if (!start) return undefined;
    const path = [start.name];
    while (path.at(-1) !== goal) path.push(next.get(path.at(-1)!)!);
    const steps: RouteStep[] = path.map((name, i) => {
      const waypoint = this.byName.get(name)!;
      const door = i === 0 ? undefined : this.doorBetween(path[i - 1]!, name);
      return { ...waypoint, zone: this.zoneAt(waypoint), ...(door ? { door } : {}) };
    });
    if (distance(from, steps[0]!) === 0) steps.shift();
    return steps;
  }

  private doorBetween(a: string, b: string): string | undefined {
    return this.neighbours.get(a)?.find((n) => n.name === b)?.door;
  }

  /** Dijkstra from the goal: each reachable waypoint's distance to it and its next hop towards it. */
  private costsTo(goal: string): { cost: Map<string, number>; next: Map<string, string> } {
    const cost = new Map<string, number>([[goal, 0]]);
    const next = new Map<string, string>();
    const open = new Set<string>([goal]);
    while (open.size > 0) {
      const current = [...open].reduce((a, b) => (cost.get(a)! <= cost.get(b)! ? a : b));
      open.delete(current);
      for (const { name } of this.neighbours.get(current) ?? []) {
        const candidate = cost.get(current)! + distance(this.byName.get(current)!, this.byName.get(name)!);
        if (candidate < (cost.get(name) ?? Infinity)) {
          cost.set(name, candidate);
          next.set(name, current);
          open.add(name);
        }
      }
    }
    return { cost, next };
  }
}
