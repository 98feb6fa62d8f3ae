import { readFileSync } from 'node:fs';
import { type Server as HttpServer, createServer as createHttpServer } from 'node:http';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { ConfigError, type DeliveryOutcome } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { makeEvent } from './test-helpers.js';

// The got instance behind HttpEventTransport (issue 29): per-phase timeouts, got's retry off,
// one keep-alive socket, all against real servers on 127.0.0.1.

const tlsDir = new URL('../fixtures/tls/', import.meta.url);
const cert = readFileSync(new URL('loopback.cert.pem', tlsDir));

function delivery(body?: string) {
  const event = makeEvent('nav-7f3a2b', 1);
  return { event, body: body ?? JSON.stringify(event), attempt: 1 };
}

/** A TCP server that accepts connections and never reads or writes a byte (`read`: it reads and drops). */
async function silentServer(read = true): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer({ pauseOnConnect: !read }, (socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    if (read) socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

async function closeServer(server: Server | HttpServer, sockets: Socket[] = []): Promise<void> {
  for (const socket of sockets) socket.destroy();
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Sends once and measures how long the outcome took. */
async function timed(transport: HttpEventTransport, body?: string): Promise<[DeliveryOutcome, number]> {
  const started = performance.now();
  const outcome = await transport.send(delivery(body));
  return [outcome, performance.now() - started];
}

describe('HttpEventTransport on got: per-phase timeouts', () => {
  let transport: HttpEventTransport | undefined;
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  afterEach(async () => {
    await transport?.close();
    if (silent) await closeServer(silent.server, silent.sockets);
    transport = undefined;
    silent = undefined;
  });

  it('a server that accepts but never answers fails the attempt at the response timeout, not the request one', async () => {
    silent = await silentServer();
    const url = `http://127.0.0.1:${silent.port}/api/agent/events`;
    transport = new HttpEventTransport({
      url,
      secret: 's',
      serverName: 'nav',
      timeoutMs: 60_000,
      timeouts: { response: 300 },
    });
    const [outcome, ms] = await timed(transport);
    expect(outcome).toEqual({ ok: false, error: 'response timeout after 300 ms' });
    expect(ms).toBeLessThan(30_000); // far below the 60 s request timeout
  });

  it('a socket idle past the socket timeout fails the attempt', async () => {
    silent = await silentServer();
    transport = new HttpEventTransport({
      url: `http://127.0.0.1:${silent.port}/x`,
      secret: 's',
      serverName: 'nav',
      timeoutMs: 60_000,
      timeouts: { socket: 300 },
    });
    const [outcome, ms] = await timed(transport);
    expect(outcome).toEqual({ ok: false, error: 'socket timeout after 300 ms' });
    expect(ms).toBeLessThan(30_000);
  });

  it('a server that never reads the body fails the attempt at the send timeout', async () => {
    silent = await silentServer(false);
    transport = new HttpEventTransport({
      url: `http://127.0.0.1:${silent.port}/x`,
      secret: 's',
      serverName: 'nav',
      timeoutMs: 60_000,
      timeouts: { send: 300 },
    });
    // 64 MiB: more than the loopback socket buffers hold, so the write never completes.
    const [outcome, ms] = await timed(transport, `"${'x'.repeat(64 * 1024 * 1024)}"`);
    expect(outcome).toEqual({ ok: false, error: 'send timeout after 300 ms' });
    expect(ms).toBeLessThan(30_000);
  });

  it('a TLS server that never finishes the handshake fails the attempt at the secureConnect timeout', async () => {
    silent = await silentServer();
    transport = new HttpEventTransport({
      url: `https://127.0.0.1:${silent.port}/x`,
      secret: 's',
      serverName: 'nav',
      timeoutMs: 60_000,
      timeouts: { secureConnect: 300 },
      https: { certificateAuthority: cert },
    });
    const [outcome, ms] = await timed(transport);
    expect(outcome).toEqual({ ok: false, error: 'secureConnect timeout after 300 ms' });
    expect(ms).toBeLessThan(30_000);
  });

  it.each([
    ['timeouts.connect', { timeouts: { connect: 0 } }],
    ['timeouts.response', { timeouts: { response: Number.NaN } }],
    ['timeouts.reply', { timeouts: { reply: 10 } }],
    ['timeouts', { timeouts: 5 }],
    ['https', { https: { certificateAuthority: 'x' } }],
  ])('rejects a bad %s with a ConfigError naming it', (field, bad) => {
    const make = () =>
      new HttpEventTransport({
        url: 'http://127.0.0.1:1/x',
        secret: 's',
        serverName: 'nav',
        ...(bad as object),
      });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(new RegExp(`^${field.replace('.', '\\.')}: `));
  });
});

describe('HttpEventTransport on got: one attempt per send, one keep-alive socket', () => {
  let server: HttpServer;
  let url: string;
  let connections: number;
  let requests: number;
  let status: number;
  let transport: HttpEventTransport | undefined;
  beforeEach(async () => {
    connections = 0;
    requests = 0;
    status = 204;
    server = createHttpServer((req, res) => {
      requests += 1;
      req.resume();
      req.on('end', () => res.writeHead(status, { 'retry-after': '0' }).end('{"error":"busy"}'));
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/agent/events`;
  });
  afterEach(async () => {
    await transport?.close();
    transport = undefined;
    await closeServer(server);
  });

  it('a 503 is attempted exactly once per send (got does not retry; the poster owns the schedule)', async () => {
    status = 503;
    transport = new HttpEventTransport({ url, secret: 's', serverName: 'nav' });
    for (let i = 1; i <= 3; i += 1) {
      await expect(transport.send(delivery())).resolves.toEqual({
        ok: false,
        status: 503,
        error: 'HTTP 503',
        retryAfterMs: 0,
      });
      expect(requests).toBe(i);
    }
  });

  it('twenty sequential sends go over one keep-alive connection', async () => {
    transport = new HttpEventTransport({ url, secret: 's', serverName: 'nav' });
    for (let i = 0; i < 20; i += 1) {
      await expect(transport.send(delivery())).resolves.toEqual({ ok: true, status: 204 });
    }
    expect(requests).toBe(20);
    expect(connections).toBe(1);
  });
});
