import type * as Listener from './http.listener.js';

/**
 * The HTTP listener (`http.listener.ts`), loaded on first use: the HTTP listener and the
 * SDK's SSE and streamable-HTTP transports are only loaded by a server that listens over HTTP, so
 * a stdio server never pays for them at start-up.
 */
export async function listenHttp(
  ...args: Parameters<typeof Listener.listenHttp>
): ReturnType<typeof Listener.listenHttp> {
  const listener = await import('./http.listener.js');
  return listener.listenHttp(...args);
}
