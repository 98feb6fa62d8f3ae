import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/server';
import { DEFAULT_NAVIGATION_CONFIG, navigationConfigFromEnv } from '../src/navigation.config.js';
import { NavigationServer } from '../src/navigation.server.js';

describe('navigationConfigFromEnv', () => {
  it('defaults to 1 m/s, 250 ms ticks, the lab door closed, starting at the dock', () => {
    expect(navigationConfigFromEnv({})).toEqual({
      speedMps: 1,
      tickMs: 250,
      closedDoors: ['lab_door'],
      start: 'dock',
    });
    expect(navigationConfigFromEnv({})).toEqual(DEFAULT_NAVIGATION_CONFIG);
  });

  it('reads NAV_SPEED_MPS, NAV_TICK_MS, NAV_CLOSED_DOORS and NAV_START', () => {
    expect(
      navigationConfigFromEnv({
        NAV_SPEED_MPS: ' 20 ',
        NAV_TICK_MS: '50',
        NAV_CLOSED_DOORS: '',
        NAV_START: 'kitchen',
      }),
    ).toEqual({ speedMps: 20, tickMs: 50, closedDoors: [], start: 'kitchen' });
    expect(navigationConfigFromEnv({ NAV_CLOSED_DOORS: ' lab_door , ' }).closedDoors).toEqual(['lab_door']);
  });

  it.each([
    [
      { NAV_SPEED_MPS: 'fast' },
      'NAV_SPEED_MPS: "fast" is not valid; use a positive number of metres per second',
    ],
    [{ NAV_SPEED_MPS: '0' }, 'NAV_SPEED_MPS: "0" is not valid'],
    [{ NAV_TICK_MS: '-5' }, 'NAV_TICK_MS: "-5" is not valid; use a positive number of milliseconds'],
    [
      { NAV_CLOSED_DOORS: 'front_door' },
      'NAV_CLOSED_DOORS: "front_door" is not a door of the map; use a comma-separated list of lab_door',
    ],
    [{ NAV_START: 'moon' }, 'NAV_START: "moon" is not a waypoint of the map; use one of dock, lobby'],
  ])('rejects %j with a ConfigError that names the variable', (env, message) => {
    expect(() => navigationConfigFromEnv(env)).toThrow(ConfigError);
    expect(() => navigationConfigFromEnv(env)).toThrow(message);
  });

  it('is what a NavigationServer built without arguments uses (process.env)', () => {
    const previous = process.env.NAV_START;
    process.env.NAV_START = 'lobby';
    try {
      expect(new NavigationServer().robot.pose()).toMatchObject({ x: 5, y: 0, zone: 'lobby' });
    } finally {
      if (previous === undefined) delete process.env.NAV_START;
      else process.env.NAV_START = previous;
    }
  });
});
