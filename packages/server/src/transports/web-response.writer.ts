import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * Serves one node:http request through the SDK's web-standard streamable-HTTP transport, and
 * writes its `Response` out chunk by chunk as the transport produces it.
 *
 * The SDK's node wrapper does the same through `@hono/node-server`, which builds a request
 * listener per call and, for a streamed body, reads ahead: when the second chunk (the JSON-RPC
 * answer after the SSE priming event) is not there within a few microtask ticks, it waits for a
 * 1 ms timer. A tool call that starts a task took those few ticks more than a plain call, so
 * every `@LongRunningTool` answer over HTTP sat idle for about a millisecond. Here the body was
 * read and parsed already (bounded, with the kit's 413), the request carries only the headers,
 * and each chunk is written the moment it is enqueued; the stream ends when the transport closes it.
 */
export async function serveWebTransport(
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage & { auth?: AuthInfo },
  res: ServerResponse,
  parsedBody?: unknown,
): Promise<void> {
  let response: Response;
  try {
    // No abort signal: the SDK transport reads the request's method, URL and headers only, and a
    // client that goes away cancels the response body (writeWebResponse), which is what ends a
    // stream there. A linked signal cost an AbortController and undici's signal bookkeeping per POST.
    response = await transport.handleRequest(webRequestOf(req), { authInfo: req.auth, parsedBody });
  } catch (error) {
    if (!res.headersSent) writeInternalError(res, error);
    else res.destroy();
    return;
  }
  await writeWebResponse(response, res);
}

/**
 * A web `Request` with the method, URL and headers of `req`. Its body was read already: the
 * parsed `body`, when given, is sent again as JSON (for a reader that wants the request itself).
 */
export function webRequestOf(
  req: IncomingMessage,
  options: { body?: unknown; signal?: AbortSignal } = {},
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.set(name, value);
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * A bound on what a stream may hold for a slow client. The producer of a `subscriptions/listen`
 * stream (the v2 SDK) enqueues every change as it happens, whether or not the body is read, so
 * waiting for the client would only move the backlog into its queue: such a stream is read as it
 * comes instead, and closed once more than `maxBufferedBytes` wait for the client (it listens again).
 */
export interface StreamBound {
  readonly maxBufferedBytes: number;
  onOverflow(bufferedBytes: number): void;
}

/**
 * Writes a web `Response` (JSON or an SSE stream) onto the node response: status and headers,
 * then every chunk as it comes, waiting for a slow client instead of buffering (with `bound`:
 * closing the stream when its backlog is over the bound); ends when the body ends, and cancels
 * the body when the client goes away.
 */
export async function writeWebResponse(
  response: Response,
  res: ServerResponse,
  bound?: StreamBound,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  holdUntilTickEnds(res);
  const reader = response.body.getReader();
  const stop = (): void => {
    reader.cancel().catch(() => undefined);
  };
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (bound) {
        res.write(value);
        if (res.writableLength <= bound.maxBufferedBytes) continue;
        bound.onOverflow(res.writableLength);
        res.destroy();
        break;
      }
      if (!res.write(value)) await drained(res);
    }
    if (!res.writableEnded && !res.destroyed) res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', stop);
  }
}

/**
 * Lets the headers and the chunks the transport enqueues in this tick (an SSE stream's priming
 * event, and an answer that needs no I/O) leave in one socket write, as the SDK's node wrapper
 * sends them, instead of one write each; at the end of the tick the headers go out in any case,
 * so a stream with nothing to say yet (a GET stream) still answers at once.
 */
function holdUntilTickEnds(res: ServerResponse): void {
  res.cork();
  process.nextTick(() => {
    if (!res.writableEnded && !res.destroyed) res.flushHeaders();
    res.uncork();
  });
}

/** Resolves when `res` can take more, or closed. */
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

function writeInternalError(res: ServerResponse, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  res.writeHead(500, { 'Content-Type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32603, message: `Internal error: ${message}` },
      id: null,
    }),
  );
}
