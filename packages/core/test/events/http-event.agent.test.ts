import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { type AddressInfo } from 'node:net';
import { type TLSSocket } from 'node:tls';
import { ConfigError, type DeliveryOutcome, verify } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { makeEvent, until } from './test-helpers.js';

// A self-signed certificate for 127.0.0.1 (server and client auth, valid to 2126): the app's
// certificate, the CA that vouches for it, and the client certificate the app demands.
const tlsDir = new URL('../fixtures/tls/', import.meta.url);
const cert = readFileSync(new URL('loopback.cert.pem', tlsDir));
const key = readFileSync(new URL('loopback.key.pem', tlsDir));
const SECRET = 'mtls-secret';

interface Seen {
  body: string;
  headers: http.IncomingHttpHeaders;
  clientCn: unknown;
}

/** A real HTTPS app on 127.0.0.1 that only talks to clients presenting a certificate its CA signed. */
async function mtlsApp(): Promise<{ server: https.Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = https.createServer(
    { cert, key, ca: [cert], requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        seen.push({
          body: Buffer.concat(chunks).toString('utf8'),
          headers: req.headers,
          clientCn: peer.subject?.CN,
        });
        res.writeHead(200).end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `https://127.0.0.1:${port}/api/agent/events`, seen };
}

/** Connections the app still holds (the transport's own agent closes its socket on close()). */
function openConnections(server: https.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );
}

function errorOf(outcome: DeliveryOutcome): string | undefined {
  return outcome.ok ? undefined : outcome.error;
}

function delivery() {
  const event = makeEvent('nav-7f3a2b', 1);
  return { event, body: JSON.stringify(event), attempt: 1 };
}

describe('HttpEventTransport with a caller agent (mTLS, private CA)', () => {
  let app: Awaited<ReturnType<typeof mtlsApp>>;
  beforeAll(async () => {
    app = await mtlsApp();
  });
  afterAll(async () => {
    app.server.closeAllConnections();
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  });

  it('without the agent, the private CA and the missing client certificate fail the POST', async () => {
    const transport = new HttpEventTransport({ url: app.url, secret: SECRET, serverName: 'nav' });
    const outcome = await transport.send(delivery());
    await transport.close();
    expect(outcome.ok).toBe(false);
    expect(errorOf(outcome)).toMatch(/SELF_SIGNED|CERT|certificate/i);
    expect(app.seen).toHaveLength(0);
  });

  it('with an https.Agent carrying the CA and a client certificate, the signed POST arrives', async () => {
    const agent = new https.Agent({ keepAlive: true, ca: [cert], cert, key });
    const transport = new HttpEventTransport({ url: app.url, secret: SECRET, serverName: 'nav', agent });
    const sent = delivery();
    const outcome = await transport.send(sent);
    expect(outcome).toEqual({ ok: true, status: 200 });
    const [got] = app.seen;
    expect(got?.clientCn).toBe('robot-mcp-kit test loopback');
    expect(got?.body).toBe(sent.body);
    expect(got?.headers['x-rvc-server']).toBe('nav');
    const valid = verify(
      SECRET,
      String(got?.headers['x-rvc-timestamp']),
      got?.body ?? '',
      String(got?.headers['x-rvc-signature']),
    );
    expect(valid).toBe(true);

    // the caller owns the agent: closing the transport keeps its idle keep-alive socket
    const idleSockets = () =>
      Object.values(agent.freeSockets)
        .flat()
        .filter((s) => s && !s.destroyed).length;
    await until(() => idleSockets() === 1);
    await transport.close();
    expect(errorOf(await transport.send(delivery()))).toBe('transport closed');
    expect(idleSockets()).toBe(1);
    agent.destroy();
  });

  it("with got's https option (CA, client certificate, key), the signed POST arrives; close() frees its own agent", async () => {
    await until(async () => (await openConnections(app.server)) === 0, 'the earlier tests gone');
    const before = app.seen.length;
    const transport = new HttpEventTransport({
      url: app.url,
      secret: SECRET,
      serverName: 'nav',
      https: { certificateAuthority: cert, certificate: cert, key },
    });
    const sent = delivery();
    await expect(transport.send(sent)).resolves.toEqual({ ok: true, status: 200 });
    await expect(transport.send(delivery())).resolves.toEqual({ ok: true, status: 200 });
    const [first, second] = app.seen.slice(before);
    expect(first?.clientCn).toBe('robot-mcp-kit test loopback');
    expect(first?.body).toBe(sent.body);
    expect(second?.clientCn).toBe('robot-mcp-kit test loopback');
    expect(await openConnections(app.server)).toBe(1); // both POSTs over one kept-alive socket
    await transport.close();
    await until(async () => (await openConnections(app.server)) === 0, 'its own agent closed the socket');
  });

  it('refuses, naming the field, an agent of the other protocol or something that is no agent', () => {
    const make = (url: string, agent: unknown) => () =>
      new HttpEventTransport({ url, secret: SECRET, serverName: 'nav', agent: agent as http.Agent });
    const plain = new http.Agent();
    const secure = new https.Agent();
    expect(make('https://127.0.0.1:1/events', plain)).toThrow(ConfigError);
    expect(make('https://127.0.0.1:1/events', plain)).toThrow(/agent.*http:.*https:.*https\.Agent/);
    expect(make('http://127.0.0.1:1/events', secure)).toThrow(/agent.*https:.*http:.*an http\.Agent/);
    expect(make('http://127.0.0.1:1/events', { keepAlive: true })).toThrow(
      /agent.*http\.Agent or https\.Agent/,
    );
    expect(make('http://127.0.0.1:1/events', plain)).not.toThrow();
    plain.destroy();
    secure.destroy();
  });
});
