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
import { exchangeThroughStages } from './http-exchange.stages.js';
import { type MessageStage } from './message-pipeline.transport.js';
import { type StreamBound, webRequestOf, writeWebResponse } from './web-response.writer.js';

/** Largest request body either leg reads (the v1 handler's bound). */
export const MODERN_MAX_BODY = 4 * 1024 * 1024;

/**
 * Most bytes a `subscriptions/listen` stream holds for a client that does not read: past it the
 * stream is closed (logged) and the client listens again (the same bound as a session's replay buffer).
 */
export const LISTEN_STREAM_MAX_BYTES = 1024 * 1024;

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
 * what its `subscriptions/listen` streams carry (the app publishes task changes there); `stages`
 * gives the kit's message stages of one exchange (`exchangeThroughStages`).
 */
export function modernLeg(
  factory: McpServerFactory,
  logger: Logger,
  bus?: ServerEventBus,
  stages: () => readonly MessageStage[] = () => [],
): ModernLeg {
  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    ...(bus ? { bus } : {}),
    maxRequestBodySize: MODERN_MAX_BODY,
    onerror: (error) => logger.debug('MCP 2026-07-28 request rejected or failed', { error: error.message }),
  });
  return {
    async claims(req, body) {
      return !(await isLegacyRequest(webRequestOf(req, { body }), body, {
        maxRequestBodySize: MODERN_MAX_BODY,
      }));
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
      const response = await exchangeThroughStages(stages(), body, () =>
        handler.fetch(webRequestOf(req, { body, signal: abort.signal }), {
          ...(req.auth ? { authInfo: req.auth } : {}),
          parsedBody: body,
        }),
      );
      await writeWebResponse(response, res, listenBound(body, logger));
    },
    close: () => handler.close(),
  };
}

/** The bound of a `subscriptions/listen` stream; undefined for every other request. */
function listenBound(body: unknown, logger: Logger): StreamBound | undefined {
  if ((body as { method?: unknown } | null)?.method !== 'subscriptions/listen') return undefined;
  return {
    maxBufferedBytes: LISTEN_STREAM_MAX_BYTES,
    onOverflow: (buffered) =>
      logger.warn('closing a subscriptions/listen stream: its client does not read what it is sent', {
        buffered_bytes: buffered,
        max_bytes: LISTEN_STREAM_MAX_BYTES,
      }),
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
