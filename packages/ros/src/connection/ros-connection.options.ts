import { type Logger, silentLogger } from '@robot-mcp-kit/core';
import { ConfigError } from '@robot-mcp-kit/server';

/** Options of {@link RoslibRosConnection}. */
export interface RosConnectionOptions {
  /** rosbridge's WebSocket URL, e.g. `ws://robot.local:9090` (`ROSBRIDGE_URL`). */
  readonly url: string;
  /** First reconnect delay in ms (default 250); doubles after each failed attempt. */
  readonly reconnectInitialMs?: number;
  /** Longest reconnect delay in ms (default 5000). */
  readonly reconnectMaxMs?: number;
  /** How long a service call waits for its answer, in ms (default 5000). */
  readonly serviceTimeoutMs?: number;
  /**
   * The server class whose tools may publish: only its tools marked `actuates: true` (a
   * `@RosActionTool` is) may call `publish`. Without it, `publish` is refused.
   */
  readonly server?: abstract new (...args: never[]) => unknown;
  readonly logger?: Logger;
}

export interface ResolvedRosConnectionOptions {
  readonly url: string;
  readonly reconnectInitialMs: number;
  readonly reconnectMaxMs: number;
  readonly serviceTimeoutMs: number;
  readonly logger: Logger;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(name, `expected a positive number of milliseconds, got ${String(value)}`);
  }
  return value;
}

/** Checks the options; a bad URL or delay fails fast naming the option and the fix. */
export function resolveRosConnectionOptions(options: RosConnectionOptions): ResolvedRosConnectionOptions {
  let parsed: URL | undefined;
  try {
    parsed = new URL(options.url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:')) {
    throw new ConfigError(
      'ROSBRIDGE_URL',
      `expected rosbridge's WebSocket URL such as ws://127.0.0.1:9090, got ${JSON.stringify(options.url)}`,
    );
  }
  const reconnectInitialMs = positive('reconnectInitialMs', options.reconnectInitialMs, 250);
  const reconnectMaxMs = Math.max(
    reconnectInitialMs,
    positive('reconnectMaxMs', options.reconnectMaxMs, 5000),
  );
  return {
    url: options.url,
    reconnectInitialMs,
    reconnectMaxMs,
    serviceTimeoutMs: positive('serviceTimeoutMs', options.serviceTimeoutMs, 5000),
    logger: options.logger ?? silentLogger,
  };
}
