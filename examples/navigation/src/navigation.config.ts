import { ConfigError } from '@robot-mcp-kit/server';
import { DEFAULT_SITE, SiteMap } from './site-map.js';

/** How the simulated robot moves. */
export type NavigationConfig = {
  /** Driving speed in metres per second (`NAV_SPEED_MPS`, default 1). */
  speedMps: number;
  /** Simulation tick in milliseconds; the pose advances and progress is reported every tick (`NAV_TICK_MS`, default 250). */
  tickMs: number;
  /** Doors closed at start-up (`NAV_CLOSED_DOORS`, comma-separated, default `lab_door`; empty = all open). */
  closedDoors: readonly string[];
  /** The waypoint the robot starts on (`NAV_START`, default `dock`). */
  start: string;
};

export const DEFAULT_NAVIGATION_CONFIG: NavigationConfig = Object.freeze({
  speedMps: 1,
  tickMs: 250,
  closedDoors: Object.freeze(['lab_door']),
  start: 'dock',
});

function positiveNumber(env: NodeJS.ProcessEnv, variable: string, fallback: number, unit: string): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      variable,
      `"${raw}" is not valid; use a positive number of ${unit}, e.g. ${fallback}`,
    );
  }
  return value;
}

/**
 * Reads `NAV_SPEED_MPS`, `NAV_TICK_MS`, `NAV_CLOSED_DOORS` and `NAV_START`.
 * @throws ConfigError naming the variable and the accepted values
 */
export function navigationConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  map: SiteMap = new SiteMap(DEFAULT_SITE),
): NavigationConfig {
  const speedMps = positiveNumber(
    env,
    'NAV_SPEED_MPS',
    DEFAULT_NAVIGATION_CONFIG.speedMps,
    'metres per second',
  );
  const tickMs = positiveNumber(env, 'NAV_TICK_MS', DEFAULT_NAVIGATION_CONFIG.tickMs, 'milliseconds');
  const rawDoors = env.NAV_CLOSED_DOORS;
  const closedDoors =
    rawDoors === undefined
      ? DEFAULT_NAVIGATION_CONFIG.closedDoors
      : rawDoors
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d.length > 0);
  for (const door of closedDoors) {
    if (!map.doors.includes(door)) {
      throw new ConfigError(
        'NAV_CLOSED_DOORS',
        `"${door}" is not a door of the map; use a comma-separated list of ${map.doors.join(', ')} (or empty)`,
      );
    }
  }
  const start = env.NAV_START?.trim() || DEFAULT_NAVIGATION_CONFIG.start;
  if (!map.waypoint(start)) {
    throw new ConfigError(
      'NAV_START',
      `"${start}" is not a waypoint of the map; use one of ${map.data.waypoints.map((w) => w.name).join(', ')}`,
    );
  }
  return { speedMps, tickMs, closedDoors, start };
}
