import { type Readable } from 'node:stream';
import { RobotMcpKitError } from '@robot-mcp-kit/core';

/** The bytes read from a request stream. */
export interface RawBody {
  readonly bytes: Buffer;
  /**
   * False when reading stopped because the limit was passed: `bytes` is then longer than the
   * limit but not the whole body, and the connection should be closed after the answer.
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

/**
 * Reads a request body into one buffer, stopping as soon as more than `maxBytes` came: the
 * excess is neither read further nor kept (the data listener is removed and the stream paused).
 */
export function readRawBody(stream: Readable, maxBytes: number): Promise<RawBody> {
  return new Promise<RawBody>((resolve, reject) => {
    if (stream.readableEnded || stream.destroyed) {
      reject(new BodyAlreadyReadError());
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = (): void => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(buf);
      length += buf.length;
      if (length > maxBytes) {
        cleanup();
        stream.pause();
        resolve({ bytes: Buffer.concat(chunks, length), complete: false });
      }
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ bytes: Buffer.concat(chunks, length), complete: true });
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new BodyReadError(`request body: the stream failed (${err.message})`, { cause: err }));
    };
    const onClose = (): void => {
      cleanup();
      reject(new BodyReadError('request body: the client closed the connection before the end'));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
