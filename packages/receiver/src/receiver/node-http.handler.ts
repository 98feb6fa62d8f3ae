import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Logger } from '@robot-mcp-kit/core';
import { BodyAlreadyReadError, type RawBody, readRequestBody } from './request-body.reader.js';
import { responses } from './receiver.responses.js';
import { type HeaderBag, type RawEventRequest, type ReceiverResponse } from './receiver.types.js';

/** A plain node:http request handler. */
export type NodeHttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The part of an EventReceiver the HTTP adapters use. */
export interface RequestJudge {
  readonly maxBodyBytes: number;
  precheck(method: string | undefined, headers: HeaderBag): ReceiverResponse | undefined;
  receive(request: RawEventRequest): Promise<ReceiverResponse>;
}

const EMPTY = Buffer.alloc(0);

/** The node:http handler of a receiver; it never throws and never leaves a request unanswered. */
export function createNodeHandler(judge: RequestJudge, logger: Logger): NodeHttpHandler {
  return (req, res) => {
    serveNodeRequest(judge, req, res, logger).catch((err: unknown) => {
      logger.error('event request failed unexpectedly', {
        error: err instanceof Error ? err.message : String(err),
      });
      if (!res.headersSent) writeResponse(res, responses.internal(), true);
      else res.destroy();
    });
  };
}

/**
 * Serves one request: pre-checks the headers, reads the body up to the limit with raw-body (or takes the raw
 * bytes a body parser kept in `req.rawBody`), and writes the receiver's answer.
 */
export async function serveNodeRequest(
  judge: RequestJudge,
  req: IncomingMessage & { rawBody?: unknown },
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  const { method, headers } = req;
  if (judge.precheck(method, headers)) {
    const unread = !req.readableEnded && hasBody(headers);
    writeResponse(res, await judge.receive({ method, headers, body: EMPTY }), unread);
    return;
  }
  let raw: RawBody;
  if (req.readableEnded && req.rawBody instanceof Uint8Array) {
    raw = { bytes: Buffer.from(req.rawBody), complete: true };
  } else {
    try {
      raw = await readRequestBody(req, judge.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyAlreadyReadError) {
        logger.error(err.message);
        writeResponse(res, responses.bodyAlreadyRead(), false);
      } else {
        // The client went away: there is no one to answer.
        logger.debug('event request aborted by the client', { error: (err as Error).message });
        res.destroy();
      }
      return;
    }
  }
  const request = { method, headers, body: raw.bytes, bodyTooLarge: !raw.complete };
  writeResponse(res, await judge.receive(request), !raw.complete);
}

/** True when the request announces a body (a length above 0 or a chunked transfer). */
export function hasBody(headers: HeaderBag): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (typeof length === 'string' && length.trim() !== '0');
}

/** Writes the answer as JSON; `close` ends the connection after it (body left unread). */
export function writeResponse(res: ServerResponse, response: ReceiverResponse, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(response.body);
  const headers: Record<string, string> = {
    ...response.headers,
    'content-length': String(Buffer.byteLength(text)),
  };
  if (close) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(text);
}
