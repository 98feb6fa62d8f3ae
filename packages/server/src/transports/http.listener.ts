import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  ConfigError,
  type Clock,
  type Logger,
  shortText,
  systemClock,
  type TimerHandle,
} from '@robot-mcp-kit/core';
import { type TransportConfig } from '../runtime/server-config.js';

/** Opens one MCP session on a connected transport (the app creates a fresh SDK server for it). */
export type SessionOpener = (transport: Transport) => Promise<void>;

/** A listening HTTP transport. */
export interface HttpListener {
  readonly url: string;
  readonly port: number;
  /** Live sessions. */
  readonly sessionCount: number;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

/** Options of {@link listenHttp}. */
export interface HttpListenerOptions {
  /**
   * Close a streamable-HTTP session after this long with no open HTTP request (no call in flight,
   * no GET stream), in ms; its tasks are then cancelled like on DELETE. Default from
   * `RMK_SESSION_IDLE_S` (seconds; unset or 0 = never).
   */
  sessionIdleMs?: number;
  /** Environment for the defaults (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
}

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

/**
 * Tracks the open HTTP requests of each session and closes a session that had none for `idleMs`.
 */
class IdleSessions {
  private readonly state = new Map<string, { open: number; timer: TimerHandle | undefined }>();

  constructor(
    private readonly idleMs: number | undefined,
    private readonly clock: Clock,
    private readonly expire: (sessionId: string) => void,
  ) {}

  /** A request of `sessionId` is open until `res` closes. */
  begin(sessionId: string, res: ServerResponse): void {
    if (this.idleMs === undefined) return;
    let entry = this.state.get(sessionId);
    if (!entry) {
      entry = { open: 0, timer: undefined };
      this.state.set(sessionId, entry);
    }
    const tracked = entry;
    tracked.open += 1;
    this.clear(tracked);
    res.once('close', () => {
      tracked.open -= 1;
      if (tracked.open > 0 || this.state.get(sessionId) !== tracked) return;
      tracked.timer = this.clock.setTimeout(() => {
        tracked.timer = undefined;
        if (tracked.open === 0 && this.state.get(sessionId) === tracked) this.expire(sessionId);
      }, this.idleMs ?? 0);
    });
  }

  forget(sessionId: string): void {
    const entry = this.state.get(sessionId);
    if (entry) this.clear(entry);
    this.state.delete(sessionId);
  }

  close(): void {
    for (const id of [...this.state.keys()]) this.forget(id);
  }

  private clear(entry: { timer: TimerHandle | undefined }): void {
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    entry.timer = undefined;
  }
}

/**
 * Serves MCP over HTTP on `config.host:config.port`: streamable HTTP at `/mcp` (sessions, GET
 * stream, DELETE) or SSE at GET `/sse` + POST `/messages`, as the official SDK transports define them.
 */
export async function listenHttp(
  config: TransportConfig,
  open: SessionOpener,
  logger: Logger,
  options: HttpListenerOptions = {},
): Promise<HttpListener> {
  const sessions = new Map<string, StreamableHTTPServerTransport | SSEServerTransport>();
  const configuredIdle = options.sessionIdleMs ?? sessionIdleMsFromEnv(options.env ?? process.env);
  const idleMs = configuredIdle !== undefined && configuredIdle > 0 ? configuredIdle : undefined;
  const idle = new IdleSessions(idleMs, options.clock ?? systemClock, (id) => {
    const transport = sessions.get(id);
    if (!transport) return;
    logger.info('session idle; closing it', { session: id, idle_ms: idleMs });
    transport.close().catch((err: unknown) => {
      logger.warn('closing an idle session failed', { session: id, error: String(err) });
    });
  });
  const handler =
    config.kind === 'sse'
      ? sseHandler(sessions, open, logger)
      : streamableHandler(sessions, open, logger, idle);
  const server: HttpServer = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      logger.error('HTTP transport error', { error: (err as Error).message });
      if (!res.headersSent) sendJson(res, 500, rpcError(-32603, 'Internal error'));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const path = config.kind === 'sse' ? '/sse' : '/mcp';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}${path}`;
  logger.info('MCP server listening', { transport: config.kind, url });
  return {
    url,
    port,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      idle.close();
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function streamableHandler(
  sessions: Map<string, unknown>,
  open: SessionOpener,
  logger: Logger,
  idle: IdleSessions,
): Handler {
  return async (req, res) => {
    if (pathOf(req) !== '/mcp')
      return sendJson(res, 404, { error: 'not_found', hint: 'the MCP endpoint is /mcp' });
    const sessionId = header(req, 'mcp-session-id');
    const existing = sessionId
      ? (sessions.get(sessionId) as StreamableHTTPServerTransport | undefined)
      : undefined;
    if (existing && sessionId) {
      idle.begin(sessionId, res);
      return existing.handleRequest(req, res);
    }
    if (sessionId)
      return sendJson(
        res,
        404,
        rpcError(-32001, `Session ${shortText(sessionId, 64)} not found; initialize a new session`),
      );
    if (req.method !== 'POST')
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: no valid session id; send initialize first'));
    const body = await readJson(req, res);
    if (body === undefined) return;
    if (!isInitializeRequest(body)) {
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: no valid session id; send initialize first'));
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        idle.begin(id, res);
        logger.debug('session opened', { session: id });
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      sessions.delete(transport.sessionId);
      idle.forget(transport.sessionId);
    };
    await open(transport);
    await transport.handleRequest(req, res, body);
  };
}

function sseHandler(sessions: Map<string, unknown>, open: SessionOpener, logger: Logger): Handler {
  return async (req, res) => {
    const path = pathOf(req);
    if (req.method === 'GET' && path === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      transport.onclose = () => sessions.delete(transport.sessionId);
      logger.debug('session opened', { session: transport.sessionId });
      await open(transport);
      return;
    }
    if (req.method === 'POST' && path === '/messages') {
      const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId') ?? '';
      const transport = sessions.get(id) as SSEServerTransport | undefined;
      if (!transport) return sendJson(res, 404, { error: 'unknown_session', hint: 'open GET /sse first' });
      return transport.handlePostMessage(req, res);
    }
    return sendJson(res, 404, {
      error: 'not_found',
      hint: 'the SSE endpoints are GET /sse and POST /messages',
    });
  };
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      sendJson(res, 413, rpcError(-32600, `Request body over ${MAX_BODY} bytes`));
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    sendJson(res, 400, rpcError(-32700, 'Parse error: the body is not JSON'));
    return undefined;
  }
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
