import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { parseTaskEvent, type TaskEvent, verify } from '@robot-mcp-kit/core';

/** One POST the receiver got. */
export interface ReceivedEvent {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly verified: boolean;
  readonly event: TaskEvent;
}

/** A local events endpoint on 127.0.0.1 that verifies every signature with core's `verify`. */
export class SignedReceiver {
  readonly received: ReceivedEvent[] = [];
  /** Events refused while {@link down} (503), in arrival order; retries appear again. */
  readonly refused: TaskEvent[] = [];
  /** While true, every POST is answered 503 and not recorded as received (an app outage). */
  down = false;
  private server: Server | undefined;

  constructor(readonly secret: string) {}

  /** Starts listening on a free port; resolves with the callback URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (this.down) {
          this.refused.push(parseTaskEvent(body));
          res.writeHead(503).end();
          return;
        }
        const verified = verify(
          this.secret,
          String(req.headers['x-rvc-timestamp']),
          body,
          String(req.headers['x-rvc-signature']),
        );
        this.received.push({ headers: req.headers, body, verified, event: parseTaskEvent(body) });
        res.writeHead(verified ? 200 : 401).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/agent/events`;
  }

  get events(): TaskEvent[] {
    return this.received.map((r) => r.event);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Re-exported for the tests that import it from here: the one `waitFor` lives in ./until.ts. */
export { waitFor } from './until.js';
