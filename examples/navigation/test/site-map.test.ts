import { describe, expect, it } from '@jest/globals';
import { OUTSIDE_ZONE, SiteMap, type SiteMapData } from '../src/site-map.js';

const map = new SiteMap();
const names = (steps: { name: string }[] | undefined) => steps?.map((s) => s.name);

describe('SiteMap', () => {
  it('finds the zone of a point; points off the map are outside', () => {
    expect(map.zoneAt({ x: 0, y: 0 })).toBe('dock');
    expect(map.zoneAt({ x: 2, y: 0 })).toBe('lobby');
    expect(map.zoneAt({ x: 20, y: 1.99 })).toBe('corridor');
    expect(map.zoneAt({ x: 20, y: 2 })).toBe('kitchen');
    expect(map.zoneAt({ x: 26, y: 0 })).toBe('lab');
    expect(map.zoneAt({ x: 100, y: 100 })).toBe(OUTSIDE_ZONE);
  });

  it('plans the shortest route along the passages, with the door on the way', () => {
    const route = map.route({ x: 0, y: 0 }, 'lab', ['dock']);
    expect(names(route)).toEqual(['lobby', 'corridor', 'junction', 'lab_entrance', 'lab']);
    expect(route!.at(-1)).toMatchObject({ zone: 'lab', door: 'lab_door' });
    expect(route![0]).not.toHaveProperty('door');
    expect(names(map.route({ x: 20, y: 6 }, 'dock', ['kitchen']))).toEqual([
      'junction',
      'corridor',
      'lobby',
      'dock',
    ]);
  });

  it('from the middle of a passage starts with the end that makes the trip shortest', () => {
    expect(names(map.route({ x: 7, y: 0 }, 'dock', ['lobby', 'corridor']))).toEqual(['lobby', 'dock']);
    expect(names(map.route({ x: 7, y: 0 }, 'kitchen', ['lobby', 'corridor']))).toEqual([
      'corridor',
      'junction',
      'kitchen',
    ]);
  });

  it('has no route to an unknown goal, to a waypoint that is not a goal, or to an unreachable one', () => {
    expect(map.route({ x: 0, y: 0 }, 'moon', ['dock'])).toBeUndefined();
    expect(map.route({ x: 0, y: 0 }, 'junction', ['dock'])).toBeUndefined();
    const island: SiteMapData = {
      zones: [],
      waypoints: [
        { name: 'a', x: 0, y: 0, goal: true },
        { name: 'b', x: 9, y: 9, goal: true },
      ],
      passages: [],
    };
    expect(new SiteMap(island).route({ x: 0, y: 0 }, 'b', ['a'])).toBeUndefined();
    expect(new SiteMap(island).route({ x: 0, y: 0 }, 'a', ['nowhere', 'a'])).toEqual([]);
  });
});
