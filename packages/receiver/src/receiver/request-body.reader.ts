import { type Readable } from 'node:stream';
import { RobotMcpKitError } from '@robot-mcp-kit/core';
import getRawBody from 'raw-body';

/** A request body as read by `raw-body`. */
export interface RawBody {
  readonly bytes: Buffer;
  /**
   * False when reading stopped because the limit was passed: `bytes` is then empty, the rest of
   * the body is left unread, and the connection should be closed after the 413.
   */
  readonly complete: boolean;
}

/** The request stream ended or failed before the whole body came. */
export class BodyReadError extends RobotMcpKitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BODY_READ_FAILED', message, options);
  }
}

/** The request stream was already read by something else (a body parser mounted in front). */
export class BodyAlreadyReadError extends RobotMcpKitError {
  constructor() {
    super(
      'BODY_ALREADY_READ',
      'request body: already consumed by another middleware; mount the event receiver before any ' +
        'body parser (or have the parser keep the raw bytes in req.rawBody)',
    );
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads a request body with `raw-body`, at most `maxBytes`: past the limit raw-body stops and
 * pauses the stream, and the result is `{ complete: false }` (answered 413, then closed).
 * @throws BodyAlreadyReadError when the stream was consumed before; BodyReadError when the client
 * went away or the stream failed.
 */
export async function readRequestBody(stream: Readable, maxBytes: number): Promise<RawBody> {
  if (stream.readableEnded || stream.destroyed) throw new BodyAlreadyReadError();
  try {
    return { bytes: await getRawBody(stream, { limit: maxBytes }), complete: true };
  } catch (err) {
    const type = (err as { type?: unknown }).type;
    if (type === 'entity.too.large') return { bytes: EMPTY, complete: false };
    if (type === 'stream.not.readable') throw new BodyAlreadyReadError();
    const reason =
      type === 'request.aborted' ? 'the client closed the connection before the end' : errorText(err);
    throw new BodyReadError(`request body: ${reason}`, { cause: err });
  }
}

function errorText(err: unknown): string {
  return `the stream failed (${err instanceof Error ? err.message : String(err)})`;
}
