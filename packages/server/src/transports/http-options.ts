import { ConfigError, type Logger } from '@robot-mcp-kit/core';
import { resolveAuth } from '../auth/auth.config.js';
import { type AuthOptions } from '../auth/auth.options.js';
import { type ToolScopeNames } from '../auth/tool-scopes.js';

/** Default idle time of a streamable-HTTP session before it is closed: 30 minutes. */
export const DEFAULT_SESSION_IDLE_S = 1800;
/** Default cap on concurrent HTTP sessions. */
export const DEFAULT_MAX_SESSIONS = 100;

/**
 * How the HTTP transports (SSE, streamable HTTP) guard themselves. Every field has an `RMK_*`
 * variable; an option given to `bootstrap()` / `listenHttp()` wins over its variable.
 */
export interface HttpSecurityOptions {
  /**
   * Extra `Host` header values accepted besides the loopback names (`localhost`, `127.0.0.1`,
   * `[::1]` with the listening port): `name` (any port) or `name:port`; `*` accepts any host.
   * Variable `RMK_ALLOWED_HOSTS` (comma-separated).
   */
  allowedHosts?: readonly string[];
  /**
   * Extra `Origin` values accepted besides loopback origins, e.g. `https://console.example.org`;
   * `*` accepts any origin. Requests without `Origin` (non-browser clients) pass. These (not the
   * loopback ones) are also the origins whose pages get CORS headers. Variable
   * `RMK_ALLOWED_ORIGINS` (comma-separated).
   */
  allowedOrigins?: readonly string[];
  /**
   * One static bearer token every request must carry (`Authorization: Bearer <token>`), for a
   * single app; at least 16 characters. Variable `RMK_AUTH_TOKEN`. Ignored when `auth` is given.
   */
  authToken?: string;
  /**
   * OAuth resource server: JWT access tokens of an issuer, or a verifier of your own; see
   * {@link AuthOptions}. Default from `RMK_AUTH_ISSUER` and `RMK_RESOURCE_URL`.
   */
  auth?: AuthOptions;
  /**
   * Listen on a non-loopback address without authentication. Off by default: such a start is
   * refused. Variable `RMK_ALLOW_UNAUTHENTICATED=1`.
   */
  allowUnauthenticated?: boolean;
  /**
   * Close a streamable-HTTP session after this many ms with no open HTTP request (no call in
   * flight, no GET stream); 0 = never. Variable `RMK_SESSION_IDLE_S` (seconds), default 1800.
   */
  sessionIdleMs?: number;
  /**
   * At most this many concurrent sessions: at the cap a new one replaces the longest-idle session
   * (no request in flight, no open stream); HTTP 503 only when every session is busy. Variable
   * `RMK_MAX_SESSIONS`, default 100.
   */
  maxSessions?: number;
}

/** {@link HttpSecurityOptions} resolved: every default applied. */
export interface HttpSecurityConfig {
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly auth: AuthOptions | undefined;
  readonly authToken: string | undefined;
  /** The scope names of the per-tool check; undefined when tools are not checked per scope. */
  readonly toolScopes: ToolScopeNames | undefined;
  readonly allowUnauthenticated: boolean;
  /** undefined = never reap. */
  readonly sessionIdleMs: number | undefined;
  readonly maxSessions: number;
}

/**
 * Reads `RMK_SESSION_IDLE_S`: seconds (decimals allowed) a streamable-HTTP session may stay without
 * an open request before it is closed; unset or empty means the default (1800), 0 means never.
 * @throws ConfigError naming the variable
 */
export function sessionIdleMsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.RMK_SESSION_IDLE_S?.trim();
  if (!raw) return DEFAULT_SESSION_IDLE_S * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new ConfigError(
      'RMK_SESSION_IDLE_S',
      `"${raw}" is not valid; use a number of seconds > 0 (default ${DEFAULT_SESSION_IDLE_S}), or 0 for never`,
    );
  }
  return seconds === 0 ? undefined : Math.max(1, Math.round(seconds * 1000));
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function checkHosts(name: string, hosts: readonly string[]): string[] {
  for (const host of hosts) {
    if (host === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(`http://${host}`);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.pathname !== '/' || parsed.username || parsed.search) {
      throw new ConfigError(name, `"${host}" is not a host; use name or name:port, e.g. robot.local:9100`);
    }
  }
  return hosts.map((h) => h.toLowerCase());
}

function checkOrigins(name: string, origins: readonly string[]): string[] {
  return origins.map((origin) => {
    if (origin === '*') return origin;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin === 'null' || parsed.origin !== origin.replace(/\/$/, '').toLowerCase()) {
      throw new ConfigError(
        name,
        `"${origin}" is not an origin; use scheme://host[:port], e.g. https://ops.example.org`,
      );
    }
    return parsed.origin;
  });
}

function flag(name: string, raw: string | undefined): boolean {
  const value = raw?.trim().toLowerCase();
  if (!value || value === '0' || value === 'false' || value === 'no' || value === 'off') return false;
  if (value === '1' || value === 'true' || value === 'yes' || value === 'on') return true;
  throw new ConfigError(name, `"${raw ?? ''}" is not an on/off value; use 1 (on) or 0 (off)`);
}

function positiveInt(name: string, raw: unknown, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' ? Number(raw.trim()) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100_000) {
    throw new ConfigError(
      name,
      `${JSON.stringify(raw)} is not valid; use a whole number from 1 to 100000 (default ${fallback})`,
    );
  }
  return value;
}

/**
 * Resolves the HTTP security settings: options win over `RMK_ALLOWED_HOSTS`, `RMK_ALLOWED_ORIGINS`,
 * `RMK_AUTH_TOKEN`, `RMK_AUTH_ISSUER`, `RMK_RESOURCE_URL`, `RMK_SCOPE_*`, `RMK_ALLOW_UNAUTHENTICATED`, `RMK_SESSION_IDLE_S`, `RMK_MAX_SESSIONS`.
 * @throws ConfigError naming the option or variable, with the fix
 */
export function httpSecurityFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: HttpSecurityOptions = {},
): HttpSecurityConfig {
  const hostsName = options.allowedHosts ? 'allowedHosts' : 'RMK_ALLOWED_HOSTS';
  const originsName = options.allowedOrigins ? 'allowedOrigins' : 'RMK_ALLOWED_ORIGINS';
  const { auth, toolScopes } = resolveAuth(env, options.auth);
  const tokenName = options.authToken !== undefined ? 'authToken' : 'RMK_AUTH_TOKEN';
  const token = options.authToken ?? (env.RMK_AUTH_TOKEN?.trim() || undefined);
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError(
      tokenName,
      'use a random token of at least 16 characters without spaces, e.g. `openssl rand -hex 32`',
    );
  }
  const idle =
    options.sessionIdleMs !== undefined
      ? options.sessionIdleMs > 0
        ? options.sessionIdleMs
        : undefined
      : sessionIdleMsFromEnv(env);
  return {
    allowedHosts: checkHosts(hostsName, options.allowedHosts ?? list(env.RMK_ALLOWED_HOSTS)),
    allowedOrigins: checkOrigins(originsName, options.allowedOrigins ?? list(env.RMK_ALLOWED_ORIGINS)),
    auth,
    authToken: auth ? undefined : token,
    toolScopes,
    allowUnauthenticated:
      options.allowUnauthenticated ?? flag('RMK_ALLOW_UNAUTHENTICATED', env.RMK_ALLOW_UNAUTHENTICATED),
    sessionIdleMs: idle,
    maxSessions: positiveInt(
      options.maxSessions !== undefined ? 'maxSessions' : 'RMK_MAX_SESSIONS',
      options.maxSessions ?? env.RMK_MAX_SESSIONS,
      DEFAULT_MAX_SESSIONS,
    ),
  };
}

/** True for a bind address only this machine can reach. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

/**
 * Refuses to listen on a non-loopback address without authentication (unless explicitly allowed).
 * @throws ConfigError naming MCP_HOST, with the fix
 */
export function checkExposure(host: string, security: HttpSecurityConfig, logger: Logger): void {
  if (isLoopbackAddress(host) || security.auth || security.authToken !== undefined) return;
  if (!security.allowUnauthenticated) {
    throw new ConfigError(
      'MCP_HOST',
      `"${host}" is reachable from the network and no authentication is configured, so anyone there ` +
        'could drive the robot. Set RMK_AUTH_TOKEN to a random token (at least 16 characters; clients ' +
        'send "Authorization: Bearer <token>") or pass auth to bootstrap(); or listen on 127.0.0.1; ' +
        'or, on a trusted network only, set RMK_ALLOW_UNAUTHENTICATED=1',
    );
  }
  logger.warn(
    'SECURITY WARNING: listening on a network address WITHOUT AUTHENTICATION ' +
      '(RMK_ALLOW_UNAUTHENTICATED=1): anyone who can reach this port can call every tool and move the robot',
    { host },
  );
}
