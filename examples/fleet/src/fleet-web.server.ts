import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { type FleetBoard } from './fleet-board.js';
import { FLEET_PAGE } from './fleet-page.js';

/** What {@link startFleetWeb} started. */
export interface FleetWeb {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the fleet page (`/`), the snapshot (`/api/fleet`) and a server-sent-events stream of
 * snapshots (`/api/stream`, one per change, at most every 100 ms) on 127.0.0.1.
 */
export async function startFleetWeb(board: FleetBoard, port = 0): Promise<FleetWeb> {
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
    } else if (path === '/') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(FLEET_PAGE);
    } else if (path === '/api/fleet') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(board.snapshot()));
    } else if (path === '/api/stream') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write(`data: ${JSON.stringify(board.snapshot())}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const unsubscribe = board.onChange(() => {
    timer ??= setTimeout(() => {
      timer = undefined;
      const data = `data: ${JSON.stringify(board.snapshot())}\n\n`;
      for (const res of streams) res.write(data);
    }, 100);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: async () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
