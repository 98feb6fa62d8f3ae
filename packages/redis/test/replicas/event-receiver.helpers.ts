import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { parseTaskEvent, type TaskEvent, verify } from '@robot-mcp-kit/core';
import { REPLICA_SECRET } from './store-replicas.helpers.js';

/**
 * An events endpoint that answers 503 while `down` and otherwise accepts what is signed with the
 * secret, with a timestamp up to an hour off (the survivor signs on its wrong clock; an app that
 * knows its robots' clocks are wrong widens `maxSkewS` the same way).
 */
export class SkewTolerantReceiver {
  down = false;
  readonly refused: TaskEvent[] = [];
  readonly accepted: TaskEvent[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const event = parseTaskEvent(body);
        if (this.down) {
          this.refused.push(event);
          res.writeHead(503).end();
          return;
        }
        const signed = verify(
          REPLICA_SECRET,
          String(req.headers['x-rvc-timestamp']),
          body,
          String(req.headers['x-rvc-signature']),
          { maxSkewS: 3600 },
        );
        if (signed) this.accepted.push(event);
        res.writeHead(signed ? 200 : 401).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/agent/events`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
