import { ConfigError } from '@robot-mcp-kit/core';

/**
 * Reads `RMK_SESSION_IDLE_S`: seconds (decimals allowed) a streamable-HTTP session may stay without
 * an open request before it is closed; unset, empty or 0 means never.
 * @throws ConfigError naming the variable
 */
export function sessionIdleMsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.RMK_SESSION_IDLE_S?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new ConfigError(
      'RMK_SESSION_IDLE_S',
      `"${raw}" is not valid; use a number of seconds > 0, or 0 for never`,
    );
  }
  return seconds === 0 ? undefined : Math.round(seconds * 1000);
}
