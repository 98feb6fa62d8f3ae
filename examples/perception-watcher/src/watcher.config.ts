import { ConfigError } from '@robot-mcp-kit/server';

/** How the simulated camera runs. */
export type WatcherConfig = {
  /** Frames per second the detector processes (`WATCHER_RATE_HZ`, default 5). */
  rateHz: number;
  /** Seed of the simulated detections (`WATCHER_SEED`, default 42); the same seed replays the same scene. */
  seed: number;
};

export const DEFAULT_WATCHER_CONFIG: WatcherConfig = Object.freeze({ rateHz: 5, seed: 42 });

/**
 * Reads `WATCHER_RATE_HZ` (0 < rate <= 1000) and `WATCHER_SEED` (an integer).
 * @throws ConfigError naming the variable and the accepted values
 */
export function watcherConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WatcherConfig {
  const rawRate = env.WATCHER_RATE_HZ?.trim();
  const rateHz = rawRate ? Number(rawRate) : DEFAULT_WATCHER_CONFIG.rateHz;
  if (!Number.isFinite(rateHz) || rateHz <= 0 || rateHz > 1000) {
    throw new ConfigError(
      'WATCHER_RATE_HZ',
      `"${rawRate}" is not valid; use frames per second between 0 and 1000, e.g. 5`,
    );
  }
  const rawSeed = env.WATCHER_SEED?.trim();
  const seed = rawSeed ? Number(rawSeed) : DEFAULT_WATCHER_CONFIG.seed;
  if (!Number.isSafeInteger(seed)) {
    throw new ConfigError('WATCHER_SEED', `"${rawSeed}" is not valid; use an integer, e.g. 42`);
  }
  return { rateHz, seed };
}
