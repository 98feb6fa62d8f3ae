import { type Logger } from '@robot-mcp-kit/core';
import { type TransportConfig } from '../runtime/server-config.js';
import { type HttpListener, type HttpListenerOptions, type SessionOpener } from './http.listener.js';

/**
 * The HTTP listener (`http.listener.ts`), loaded on first use: the HTTP listener and the
 * SDK's SSE and streamable-HTTP transports are only loaded by a server that listens over HTTP, so
 * a stdio server never pays for them at start-up.
 */
export async function listenHttp(
  config: TransportConfig,
  open: SessionOpener,
  logger: Logger,
  options: HttpListenerOptions = {},
): Promise<HttpListener> {
  const listener = await import('./http.listener.js');
  return listener.listenHttp(config, open, logger, options);
}
