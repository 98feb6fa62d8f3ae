import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/server';
import {
  FRAME_HEIGHT,
  FRAME_WIDTH,
  LABELS,
  SimulatedDetector,
  seededRandom,
} from '../src/simulated-detector.js';
import { DEFAULT_WATCHER_CONFIG, watcherConfigFromEnv } from '../src/watcher.config.js';
import { PerceptionWatcherServer } from '../src/perception-watcher.server.js';

describe('SimulatedDetector', () => {
  it('replays the same detections for the same seed, and others for another seed', () => {
    const frames = (seed: number) => {
      const detector = new SimulatedDetector(seed);
      return Array.from({ length: 30 }, () => detector.nextFrame());
    };
    expect(frames(1)).toEqual(frames(1));
    expect(frames(1)).not.toEqual(frames(2));
  });

  it('numbers frames from 1 and keeps boxes inside the frame and confidences in 0.35..0.99', () => {
    const detector = new SimulatedDetector(3);
    const all = Array.from({ length: 200 }, () => detector.nextFrame()).flat();
    expect(new Set(all.map((d) => d.label))).toEqual(new Set(LABELS.map((l) => l.label)));
    expect(Math.min(...all.map((d) => d.frame))).toBe(1);
    for (const { confidence, bbox } of all) {
      expect(confidence).toBeGreaterThanOrEqual(0.35);
      expect(confidence).toBeLessThanOrEqual(0.99);
      expect(bbox.x + bbox.width).toBeLessThanOrEqual(FRAME_WIDTH);
      expect(bbox.y + bbox.height).toBeLessThanOrEqual(FRAME_HEIGHT);
    }
    const people = all.filter((d) => d.label === 'person').length;
    const dogs = all.filter((d) => d.label === 'dog').length;
    expect(people).toBeGreaterThan(dogs);
  });

  it('draws numbers in [0, 1)', () => {
    const random = seededRandom(99);
    const draws = Array.from({ length: 1000 }, random);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
  });
});

describe('watcherConfigFromEnv', () => {
  it('defaults to 5 Hz and seed 42, and reads WATCHER_RATE_HZ and WATCHER_SEED', () => {
    expect(watcherConfigFromEnv({})).toEqual(DEFAULT_WATCHER_CONFIG);
    expect(watcherConfigFromEnv({ WATCHER_RATE_HZ: '50', WATCHER_SEED: '-3' })).toEqual({
      rateHz: 50,
      seed: -3,
    });
  });

  it.each([
    [{ WATCHER_RATE_HZ: 'fast' }, 'WATCHER_RATE_HZ: "fast" is not valid'],
    [{ WATCHER_RATE_HZ: '0' }, 'WATCHER_RATE_HZ: "0" is not valid'],
    [{ WATCHER_SEED: '1.5' }, 'WATCHER_SEED: "1.5" is not valid; use an integer'],
  ])('rejects %j with a ConfigError that names the variable', (env, message) => {
    expect(() => watcherConfigFromEnv(env)).toThrow(ConfigError);
    expect(() => watcherConfigFromEnv(env)).toThrow(message);
  });

  it('is what a server built without arguments uses (process.env)', () => {
    expect(new PerceptionWatcherServer().config).toEqual(watcherConfigFromEnv(process.env));
  });
});
