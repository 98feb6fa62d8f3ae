import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpServerFactory,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { type Logger } from '@robot-mcp-kit/core';

/** Largest request body either leg reads (the v1 handler's bound). */
export const MODERN_MAX_BODY = 4 * 1024 * 1024;

/**
 * The MCP 2026-07-28 leg of the streamable-HTTP listener. The listener reads a session-less POST
 * once, asks {@link ModernLeg.claims} whether it is 2026-07-28 traffic (the v2 SDK's own
 * classification, `isLegacyRequest`), and hands it to {@link ModernLeg.serve} if so; everything
 * else (initialize, `Mcp-Session-Id` requests, GET/DELETE, SSE) stays on the v1 session stack.
 */
export interface ModernLeg {
  claims(req: IncomingMessage, body: unknown): Promise<boolean>;
  serve(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * A {@link ModernLeg} over the v2 SDK's `createMcpHandler(factory, { legacy: 'reject' })`. `bus` is
 * what its `subscriptions/listen` streams carry (the app publishes task changes there).
 */
export function modernLeg(factory: McpServerFactory, logger: Logger, bus?: ServerEventBus): ModernLeg {
  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    ...(bus ? { bus } : {}),
    maxRequestBodySize: MODERN_MAX_BODY,
    onerror: (error) => logger.debug('MCP 2026-07-28 request rejected or failed', { error: error.message }),
  });
  return {
    async claims(req, body) {
      return !(await isLegacyRequest(toWebRequest(req, body), body, { maxRequestBodySize: MODERN_MAX_BODY }));
    },
    async serve(req, res, body) {
      if (!isJsonContentType(headerOf(req, 'content-type') ?? '')) {
        res.writeHead(415, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32600, message: 'Unsupported Media Type: Content-Type must be application/json' },
            id: null,
          }),
        );
        return;
      }
      const abort = new AbortController();
      res.once('close', () => abort.abort());
      const response = await handler.fetch(toWebRequest(req, body, abort.signal), {
        ...(req.auth ? { authInfo: req.auth } : {}),
        parsedBody: body,
      });
      await writeResponse(response, res);
    },
    close: () => handler.close(),
  };
}

/** A web `Request` for the v2 SDK, with the body already read by the listener. */
function toWebRequest(req: IncomingMessage, body: unknown, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const host = headerOf(req, 'host') ?? 'localhost';
  return new Request(`http://${host}${req.url ?? '/'}`, {
    method: req.method ?? 'POST',
    headers,
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Copies a web `Response` (JSON or an SSE stream) onto the Node response. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        await reader.cancel().catch(() => undefined); // the client left: stop the stream
        break;
      }
      // Long-lived streams (subscriptions/listen): wait for a slow client instead of buffering.
      if (!res.write(value)) await drained(res);
    }
  } finally {
    reader.releaseLock();
    if (!res.writableEnded) res.end();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
