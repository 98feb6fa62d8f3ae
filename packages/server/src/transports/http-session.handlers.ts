import getRawBody from 'raw-body';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import { type ScopeGate } from '../auth/scope-gate.js';
import { type TaskOwners } from '../auth/task-owners.js';
import { BoundedEventStore } from './bounded-event.store.js';
import { type IdleSessions } from './idle-sessions.js';
import { type ModernLeg } from './modern-http.route.js';
import { serveWebTransport } from './web-response.writer.js';

/** Opens one MCP session on a connected transport (the app creates a fresh SDK server for it). */
export type SessionOpener = (transport: Transport) => Promise<void>;

/** Answers one HTTP request. */
export type Handler = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => Promise<void>;

const MAX_BODY = 4 * 1024 * 1024;
const ECHO_MAX = 64;

/** What the session handlers share with the listener. */
export interface SessionDeps {
  readonly sessions: Map<string, WebStandardStreamableHTTPServerTransport | SSEServerTransport>;
  readonly open: SessionOpener;
  readonly logger: Logger;
  readonly idle: IdleSessions;
  readonly owners: TaskOwners;
  readonly maxSessions: number;
  /** `retry:` of the priming event, in ms. */
  readonly retryIntervalMs: number;
  readonly eventStore: { maxEvents: number; maxBytes: number };
  /** MCP 2026-07-28 requests (no session, version in `_meta`) go here when set. */
  readonly modern?: ModernLeg;
  /** Open 2026 `subscriptions/listen` streams: each counts against `maxSessions` like a session. */
  readonly listening: { count: number };
  /** The per-tool scope check of every POSTed body, before MCP sees it. */
  readonly gate?: ScopeGate;
}

/**
 * Makes room for a new session. Below the cap: yes. At the cap: the longest-idle session (no request
 * in flight, no open stream) is closed for it (logged; its tasks keep running, as when idle ones are
 * reaped); only when every session is busy is the new one refused: HTTP 503 with `Retry-After` and
 * a JSON-RPC error. Returns false when refused.
 */
function admit(deps: SessionDeps, pending: number, res: ServerResponse): boolean {
  if (deps.sessions.size + deps.listening.count + pending < deps.maxSessions) return true;
  for (let victim = deps.idle.longestIdle(); victim; victim = deps.idle.longestIdle()) {
    const transport = deps.sessions.get(victim.sessionId);
    deps.idle.forget(victim.sessionId);
    if (!transport) continue;
    deps.sessions.delete(victim.sessionId);
    deps.logger.info(
      'session cap reached; closing the longest-idle session for a new one (its tasks keep running)',
      {
        session: victim.sessionId,
        idle_ms: victim.idleMs,
        max_sessions: deps.maxSessions,
      },
    );
    transport.close().catch((err: unknown) => {
      deps.logger.warn('closing an evicted session failed', {
        session: victim.sessionId,
        error: String(err),
      });
    });
    return true;
  }
  deps.logger.warn('session cap reached and every session is busy; refusing a new session', {
    max_sessions: deps.maxSessions,
  });
  res.setHeader('Retry-After', '30');
  sendJson(
    res,
    503,
    rpcError(
      -32000,
      `Too many sessions: ${deps.maxSessions} are open (RMK_MAX_SESSIONS=${deps.maxSessions}; an MCP 2026 ` +
        'subscriptions/listen stream counts as one) and every one is busy (a request in flight or an open ' +
        'stream); retry later, close unused sessions (DELETE /mcp) and streams, or raise RMK_MAX_SESSIONS',
    ),
  );
  return false;
}

/** The session a request names, if it exists and belongs to the request's principal. */
function sessionFor<T>(deps: SessionDeps, id: string, req: { auth?: AuthInfo }): T | undefined {
  const transport = deps.sessions.get(id) as T | undefined;
  if (!transport) return undefined;
  // A session is bound to the principal that opened it: another token cannot use its id.
  return deps.owners.ofSession(id) === req.auth?.clientId ? transport : undefined;
}

/** Streamable HTTP at `/mcp`: sessions, GET stream with resumability, DELETE. */
export function streamableHandler(deps: SessionDeps): Handler {
  let pending = 0;
  return async (req, res) => {
    if (pathOf(req) !== '/mcp')
      return sendJson(res, 404, { error: 'not_found', hint: 'the MCP endpoint is /mcp' });
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId) {
      const existing = sessionFor<WebStandardStreamableHTTPServerTransport>(deps, sessionId, req);
      if (!existing) {
        return sendJson(
          res,
          404,
          rpcError(-32001, `Session ${cut(sessionId)} not found; initialize a new session`),
        );
      }
      deps.idle.begin(sessionId, res);
      if (req.method !== 'POST') return serveWebTransport(existing, req, res);
      const posted = await readJson(req, res);
      if (posted === undefined || deps.gate?.refused(req, res, posted)) return;
      return serveWebTransport(existing, req, res, posted);
    }
    if (req.method !== 'POST')
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: no valid session id; send initialize first'));
    const body = await readJson(req, res);
    if (body === undefined || deps.gate?.refused(req, res, body)) return;
    if (deps.modern && (await deps.modern.claims(req, body)))
      return serveModern(deps, deps.modern, pending, req, res, body);
    if (!isInitializeRequest(body)) {
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: no valid session id; send initialize first'));
    }
    if (!admit(deps, pending, res)) return;
    pending += 1;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(deps.eventStore.maxEvents, deps.eventStore.maxBytes),
      retryInterval: deps.retryIntervalMs,
      onsessioninitialized: (id) => {
        deps.sessions.set(id, transport);
        deps.owners.bindSession(id, req.auth);
        deps.idle.begin(id, res);
        deps.logger.debug('session opened', { session: id });
      },
    });
    transport.onclose = () => {
      if (!transport.sessionId) return;
      deps.sessions.delete(transport.sessionId);
      deps.idle.forget(transport.sessionId);
      deps.owners.forgetSession(transport.sessionId);
    };
    try {
      await deps.open(transport);
      await serveWebTransport(transport, req, res, body);
    } finally {
      pending -= 1;
    }
  };
}

/** SSE at GET `/sse` + POST `/messages`. */
export function sseHandler(deps: SessionDeps): Handler {
  return async (req, res) => {
    const path = pathOf(req);
    if (req.method === 'GET' && path === '/sse') {
      if (!admit(deps, 0, res)) return;
      const transport = new SSEServerTransport('/messages', res);
      deps.sessions.set(transport.sessionId, transport);
      deps.owners.bindSession(transport.sessionId, req.auth);
      transport.onclose = () => {
        deps.sessions.delete(transport.sessionId);
        deps.owners.forgetSession(transport.sessionId);
      };
      deps.logger.debug('session opened', { session: transport.sessionId });
      await deps.open(transport);
      return;
    }
    if (req.method === 'POST' && path === '/messages') {
      const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId') ?? '';
      const transport = sessionFor<SSEServerTransport>(deps, id, req);
      if (!transport) return sendJson(res, 404, { error: 'unknown_session', hint: 'open GET /sse first' });
      if (!deps.gate) return transport.handlePostMessage(req, res);
      const body = await readJson(req, res);
      if (body === undefined || deps.gate.refused(req, res, body)) return;
      return transport.handlePostMessage(req, res, body);
    }
    return sendJson(res, 404, {
      error: 'not_found',
      hint: 'the SSE endpoints are GET /sse and POST /messages',
    });
  };
}

/** A 2026-07-28 request; a `subscriptions/listen` stream takes a session place while it is open. */
async function serveModern(
  deps: SessionDeps,
  modern: ModernLeg,
  pending: number,
  req: IncomingMessage & { auth?: AuthInfo },
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  if (!isListen(body)) return modern.serve(req, res, body);
  if (!admit(deps, pending, res)) return;
  deps.listening.count += 1;
  res.once('close', () => {
    deps.listening.count -= 1;
  });
  return modern.serve(req, res, body);
}

/** Whether a 2026 request opens a `subscriptions/listen` stream. */
function isListen(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { method?: unknown }).method === 'subscriptions/listen'
  );
}

/** The JSON body of a POST (at most MAX_BODY bytes, read by raw-body); answers 413/400 itself. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  let text: string;
  try {
    text = await getRawBody(req, { limit: MAX_BODY, encoding: 'utf8' });
  } catch (error) {
    if ((error as { type?: unknown }).type === 'entity.too.large') {
      sendJson(res, 413, rpcError(-32600, `Request body over ${MAX_BODY} bytes`));
    } else {
      sendJson(res, 400, rpcError(-32600, 'Request body could not be read'));
    }
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    sendJson(res, 400, rpcError(-32700, 'Parse error: the body is not JSON'));
    return undefined;
  }
}

function cut(value: string): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > ECHO_MAX ? `${clean.slice(0, ECHO_MAX)}…` : clean;
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
