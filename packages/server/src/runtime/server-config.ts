import { ConfigError } from '@robot-mcp-kit/core';
import { LOG_LEVELS, MCP_TRANSPORTS, type McpTransport } from '@robot-mcp-kit/core/rules';

export type TransportKind = McpTransport;
/** The transports (the core's {@link MCP_TRANSPORTS}). */
export const TRANSPORT_KINDS: readonly TransportKind[] = MCP_TRANSPORTS;

/** Where and how the server listens. */
export interface TransportConfig {
  kind: TransportKind;
  /** Bind address for HTTP transports; loopback unless told otherwise. */
  host: string;
  port: number;
}

/**
 * Reads `MCP_TRANSPORT` (stdio | sse | streamable-http, default stdio), `MCP_HOST` (default
 * 127.0.0.1) and `MCP_PORT` (default 9100); explicit options win. Bad values fail fast.
 */
export function transportConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<TransportConfig> = {},
): TransportConfig {
  const rawKind = overrides.kind ?? (env.MCP_TRANSPORT?.trim() || 'stdio');
  const kind = rawKind === 'streamable_http' ? 'streamable-http' : rawKind;
  if (!TRANSPORT_KINDS.includes(kind as TransportKind)) {
    throw new ConfigError(
      'MCP_TRANSPORT',
      `"${rawKind}" is not a transport; use one of ${TRANSPORT_KINDS.join(', ')}`,
    );
  }
  const host = overrides.host ?? (env.MCP_HOST?.trim() || '127.0.0.1');
  const rawPort = overrides.port ?? (env.MCP_PORT?.trim() ? Number(env.MCP_PORT) : 9100);
  if (!Number.isInteger(rawPort) || rawPort < 0 || rawPort > 65535) {
    throw new ConfigError(
      'MCP_PORT',
      `"${env.MCP_PORT ?? String(rawPort)}" is not a port; use a number from 0 to 65535 (0 picks a free one)`,
    );
  }
  return { kind: kind as TransportKind, host, port: rawPort };
}

/**
 * Checks `LOG_LEVEL` (any case; unset or empty means info): the logger would silently fall back to
 * info on a level it does not know, e.g. `verbose`.
 * @throws ConfigError naming the variable and the levels
 */
export function checkLogLevel(env: NodeJS.ProcessEnv = process.env): void {
  const level = env.LOG_LEVEL?.trim();
  if (!level || (LOG_LEVELS as readonly string[]).includes(level.toLowerCase())) return;
  throw new ConfigError(
    'LOG_LEVEL',
    `"${level}" is not a log level; use one of ${LOG_LEVELS.join(', ')} (debug is the most verbose), or unset it for info`,
  );
}
