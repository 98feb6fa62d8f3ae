import { request } from 'node:http';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { type Running, SECRETS, listen, makeEvent, signedHeaders } from '../receiver-test.helpers.js';

// The receiver reads bodies with raw-body (issue 29): past maxBodyBytes it answers 413, stops
// reading and closes the connection, also when the client never stops sending.

const LIMIT = 4096;

describe('EventReceiver request bodies (raw-body)', () => {
  let receiver: EventReceiver;
  let server: Running;
  let consumed: number;
  beforeEach(async () => {
    receiver = createEventReceiver({
      secrets: SECRETS,
      onEvent: () => undefined,
      maxBodyBytes: LIMIT,
      logger: new MemoryLogger(),
    });
    consumed = 0;
    server = await listen((req, res) => {
      // What the receiver pulls from the stream, counted as it goes through.
      req.on('data', (chunk: Buffer) => {
        consumed += chunk.length;
      });
      receiver.handler(req, res);
    });
  });
  afterEach(async () => {
    await receiver.close();
    await server.close();
  });

  it('a client streaming a chunked body without end gets 413 and a closed connection; reading stops', async () => {
    const headers = { ...signedHeaders('{}'), 'transfer-encoding': 'chunked' };
    const chunk = Buffer.alloc(1024, 0x20);
    let sent = 0;
    const answer = await new Promise<{ status: number; connection: unknown; closed: Promise<void> }>(
      (resolve, reject) => {
        const req = request(`${server.url}`, { method: 'POST', headers }, (res) => {
          res.resume();
          const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, closed });
        });
        req.on('error', () => undefined); // the server closes while we still write
        const pump = (): void => {
          while (!req.destroyed && sent < 64 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          if (!req.destroyed) reject(new Error('64 MiB sent without an answer'));
        };
        pump();
      },
    );
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    await answer.closed;
    expect(consumed).toBeLessThan(LIMIT + 64 * 1024); // the limit and at most one more read
    expect(receiver.stats().byStatus[413]).toBe(1);
  });

  it('receive() answers 413 to a request an adapter marked bodyTooLarge, whatever bytes it holds', async () => {
    const body = Buffer.from(JSON.stringify(makeEvent()));
    const headers = signedHeaders(body.toString());
    const answer = await receiver.receive({ method: 'POST', headers, body, bodyTooLarge: true });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'payload_too_large', max_bytes: LIMIT });
    const whole = await receiver.receive({ method: 'POST', headers, body });
    expect(whole.status).toBe(200);
  });
});
