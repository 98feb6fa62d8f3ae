import { createServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { type SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { type WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type McpServerFactory, type ServerEventBus } from '@modelcontextprotocol/server';
import { type Clock, type Logger, systemClock } from '@robot-mcp-kit/core';
import { type AuthMiddleware, authMiddleware } from '../auth/bearer-auth.middleware.js';
import { scopeGate } from '../auth/scope-gate.js';
import { TaskOwners } from '../auth/task-owners.js';
import { type ScopedTool } from '../auth/tool-scopes.js';
import { type TransportConfig } from '../runtime/server-config.js';
import { EVENT_STORE_MAX_BYTES, EVENT_STORE_MAX_EVENTS } from './bounded-event.store.js';
import { corsPolicy } from './cors.policy.js';
import { hostOriginGuard } from './host-origin.guard.js';
import {
  checkExposure,
  type HttpSecurityConfig,
  type HttpSecurityOptions,
  httpSecurityFromEnv,
  sessionIdleMsFromEnv,
} from './http-options.js';
import {
  type Handler,
  rpcError,
  sendJson,
  type SessionDeps,
  type SessionOpener,
  sseHandler,
  streamableHandler,
} from './http-session.handlers.js';
import { IdleSessions } from './idle-sessions.js';
import { type MessageStage } from './message-pipeline.transport.js';
import { type ModernLeg, modernLeg } from './modern-http.route.js';

export { sessionIdleMsFromEnv };
export type { SessionOpener };

/** A listening HTTP transport. */
export interface HttpListener {
  readonly url: string;
  readonly port: number;
  /** Live sessions. */
  readonly sessionCount: number;
  /** Open MCP 2026 `subscriptions/listen` streams (they count against the session cap). */
  readonly listenStreamCount: number;
  close(): Promise<void>;
}

/** Options of {@link listenHttp}; the security fields default from the `RMK_*` variables. */
export interface HttpListenerOptions extends HttpSecurityOptions {
  /** Settings already resolved (bootstrap does it); wins over the other security fields. */
  security?: HttpSecurityConfig;
  /** Where the principal of each authenticated session is recorded. */
  owners?: TaskOwners;
  /** `retry:` sent in the priming event of streamable-HTTP SSE streams, in ms (default 1000). */
  retryIntervalMs?: number;
  /** Bounds of each session's replay buffer (default 256 events, 1 MiB). */
  eventStore?: { maxEvents?: number; maxBytes?: number };
  /**
   * Serves MCP 2026-07-28 requests on the same `/mcp` endpoint (streamable HTTP only) from v2 SDK
   * servers this factory builds, one per request; 2025-era requests keep the session stack.
   */
  modern?: McpServerFactory;
  /** The change-event bus of the 2026 leg's `subscriptions/listen` streams (default: its own). */
  modernBus?: ServerEventBus;
  /**
   * The kit's message stages of one 2026 exchange (JSON guard, tracing, task handle).
   * @internal
   */
  modernStages?: () => readonly MessageStage[];
  /** The tools by name, for the per-tool scope check (with `auth.issuer` or `auth.scopes`). */
  toolOf?: (name: string) => ScopedTool | undefined;
  /** Environment for the defaults (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
}

/** The Express app: Host/Origin guard, CORS, then authentication, then the MCP session handler. */
function guardedApp(
  config: TransportConfig,
  security: HttpSecurityConfig,
  port: () => number,
  logger: Logger,
  parts: { auth: AuthMiddleware | undefined; handler: Handler },
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(
    hostOriginGuard({
      allowedHosts: security.allowedHosts,
      allowedOrigins: security.allowedOrigins,
      bindHost: config.host,
      port,
    }),
  );
  app.use(corsPolicy(security.allowedOrigins));
  if (parts.auth?.metadata) app.use(parts.auth.metadata);
  if (parts.auth) app.use(parts.auth.guard);
  app.use((req, res) => {
    parts.handler(req, res).catch((err: unknown) => {
      logger.error('HTTP transport error', { error: (err as Error).message });
      if (!res.headersSent) sendJson(res, 500, rpcError(-32603, 'Internal error'));
      else res.end();
    });
  });
  return app;
}

/**
 * Serves MCP over HTTP on `config.host:config.port`: streamable HTTP at `/mcp` (sessions, GET
 * stream, resumable SSE, DELETE) or SSE at GET `/sse` + POST `/messages`, as the official SDK
 * transports define them. Every request passes Host/Origin validation (DNS-rebinding protection)
 * and, when configured, bearer-token authentication; sessions are capped and idle ones reaped.
 */
export async function listenHttp(
  config: TransportConfig,
  open: SessionOpener,
  logger: Logger,
  options: HttpListenerOptions = {},
): Promise<HttpListener> {
  const security = options.security ?? httpSecurityFromEnv(options.env ?? process.env, options);
  checkExposure(config.host, security, logger);
  const auth = await authMiddleware(security, logger, options.clock);
  const gate =
    security.toolScopes && options.toolOf
      ? scopeGate(security.toolScopes, options.toolOf, logger, auth?.resourceMetadataUrl)
      : undefined;
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport | SSEServerTransport>();
  const idle = idleReaper(sessions, security.sessionIdleMs, options.clock ?? systemClock, logger);
  const modern: ModernLeg | undefined =
    options.modern && config.kind === 'streamable-http'
      ? modernLeg(options.modern, logger, options.modernBus, options.modernStages)
      : undefined;
  const deps: SessionDeps = {
    ...(modern ? { modern } : {}),
    ...(gate ? { gate } : {}),
    sessions,
    open,
    logger,
    idle,
    owners: options.owners ?? new TaskOwners(),
    maxSessions: security.maxSessions,
    listening: { count: 0 },
    retryIntervalMs: options.retryIntervalMs ?? 1000,
    eventStore: {
      maxEvents: options.eventStore?.maxEvents ?? EVENT_STORE_MAX_EVENTS,
      maxBytes: options.eventStore?.maxBytes ?? EVENT_STORE_MAX_BYTES,
    },
  };
  let port = config.port;
  const app = guardedApp(config, security, () => port, logger, {
    auth,
    handler: config.kind === 'sse' ? sseHandler(deps) : streamableHandler(deps),
  });
  const server: HttpServer = createServer(app);
  port = await listenOn(server, config);
  const url = endpointUrl(config, port);
  logger.info('MCP server listening', {
    transport: config.kind,
    url,
    auth: auth?.mode ?? 'none',
    tool_scopes: gate ? security.toolScopes : null,
    max_sessions: security.maxSessions,
    session_idle_ms: security.sessionIdleMs ?? null,
    mcp_2026_07_28: modern !== undefined,
  });
  return {
    url,
    port,
    get sessionCount() {
      return sessions.size;
    },
    get listenStreamCount() {
      return deps.listening.count;
    },
    async close() {
      idle.close();
      await modern?.close();
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Closes a session idle past `idleMs` (its tasks keep running). */
function idleReaper(
  sessions: ReadonlyMap<string, { close(): Promise<void> }>,
  idleMs: number | undefined,
  clock: Clock,
  logger: Logger,
): IdleSessions {
  return new IdleSessions(idleMs, clock, (id) => {
    const transport = sessions.get(id);
    if (!transport) return;
    logger.info('session idle; closing it (its tasks keep running)', { session: id, idle_ms: idleMs });
    transport.close().catch((err: unknown) => {
      logger.warn('closing an idle session failed', { session: id, error: String(err) });
    });
  });
}

/** Listens on the configured host and port; resolves with the bound port. */
async function listenOn(server: HttpServer, config: TransportConfig): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** The URL clients use: `/sse` for SSE, `/mcp` for streamable HTTP; an IPv6 host in brackets. */
function endpointUrl(config: TransportConfig, port: number): string {
  const path = config.kind === 'sse' ? '/sse' : '/mcp';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${port}${path}`;
}
