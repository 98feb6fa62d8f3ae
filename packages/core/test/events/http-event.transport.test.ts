import { createServer } from 'node:net';
import { ConfigError, verify } from '@robot-mcp-kit/core';
import { parseRetryAfter } from '../../src/events/http-event.transport.js';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { TestServer, makeEvent } from './test-helpers.js';

const SECRET = 'nav-secret-éü';
const T0 = Date.UTC(2026, 0, 1);

function delivery(body?: string) {
  const event = makeEvent('nav-7f3a2b', 1);
  return { event, body: body ?? JSON.stringify(event), attempt: 1 };
}

describe('HttpEventTransport', () => {
  let server: TestServer;
  let transport: HttpEventTransport | undefined;
  beforeEach(async () => {
    server = await TestServer.start();
  });
  afterEach(async () => {
    await transport?.close();
    transport = undefined;
    await server.close();
  });

  it('POSTs the body unchanged with the four contract headers', async () => {
    const clock = new ManualClock(T0 + 1500);
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'navigation', clock });
    const body = '{"payload":{"zone":"küche","emoji":"🤖"}}';
    await expect(transport.send(delivery(body))).resolves.toEqual({ ok: true, status: 204 });
    const [req] = server.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/api/agent/events');
    expect(req!.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-rvc-server']).toBe('navigation');
    expect(req!.headers['x-rvc-timestamp']).toBe(String((T0 + 1000) / 1000));
    expect(req!.headers['x-rvc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(
      verify(
        SECRET,
        req!.headers['x-rvc-timestamp'] as string,
        req!.body,
        req!.headers['x-rvc-signature'] as string,
        {
          nowMs: clock.now(),
        },
      ),
    ).toBe(true);
  });

  it('signs each attempt with a fresh timestamp and reuses one keep-alive connection', async () => {
    const clock = new ManualClock(T0);
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'navigation', clock });
    const d = delivery();
    await transport.send(d);
    await clock.advance(3000);
    await transport.send({ ...d, attempt: 2 });
    const [first, second] = server.requests;
    expect(Number(second!.headers['x-rvc-timestamp'])).toBe(Number(first!.headers['x-rvc-timestamp']) + 3);
    expect(second!.headers['x-rvc-signature']).not.toBe(first!.headers['x-rvc-signature']);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(second!.clientPort).toBe(first!.clientPort);
    expect(first!.headers.connection).toBe('keep-alive');
  });

  it('reports a non-2xx status with Retry-After', async () => {
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'nav' });
    server.reply = (_r, i) =>
      i === 0 ? { status: 503, headers: { 'Retry-After': '7' } } : { status: i === 1 ? 500 : 302 };
    await expect(transport.send(delivery())).resolves.toEqual({
      ok: false,
      status: 503,
      error: 'HTTP 503',
      retryAfterMs: 7000,
    });
    await expect(transport.send(delivery())).resolves.toEqual({ ok: false, status: 500, error: 'HTTP 500' });
    await expect(transport.send(delivery())).resolves.toEqual({ ok: false, status: 302, error: 'HTTP 302' });
    expect(server.requests).toHaveLength(3); // never retried by got itself
  });

  it('parses an HTTP-date Retry-After against its clock', async () => {
    const clock = new ManualClock(T0);
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'nav', clock });
    server.reply = () => ({ status: 429, headers: { 'Retry-After': new Date(T0 + 20_000).toUTCString() } });
    await expect(transport.send(delivery())).resolves.toMatchObject({
      ok: false,
      status: 429,
      retryAfterMs: 20_000,
    });
  });

  it('reports a refused connection without throwing', async () => {
    const port = await freePort();
    transport = new HttpEventTransport({
      url: `http://127.0.0.1:${port}/x`,
      secret: SECRET,
      serverName: 'nav',
    });
    await expect(transport.send(delivery())).resolves.toEqual({ ok: false, error: 'ECONNREFUSED' });
  });

  it('sends the headers the kit sent through got: names, case and order, credentials from the URL; its own User-Agent', async () => {
    const clock = new ManualClock(T0);
    const url = server.url.replace('http://', 'http://us%40er:p%3Ass@') + '?x=1';
    const secrets = [`whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`];
    for (const standardWebhooks of [undefined, { secrets }]) {
      transport = new HttpEventTransport({ url, secret: SECRET, serverName: 'nav', clock, standardWebhooks });
      await expect(transport.send(delivery('{"a":"ü"}'))).resolves.toEqual({ ok: true, status: 204 });
      await transport.close();
    }
    const names = (raw: readonly string[]) => raw.filter((_, i) => i % 2 === 0);
    const signing = ['x-rvc-server', 'x-rvc-timestamp', 'x-rvc-signature'];
    const webhooks = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
    const tail = ['content-length', 'authorization', 'Host', 'Connection'];
    const [plain, signed] = server.requests;
    expect(names(plain!.rawHeaders)).toEqual(['user-agent', 'content-type', ...signing, ...tail]);
    expect(names(signed!.rawHeaders)).toEqual([
      'user-agent',
      'content-type',
      ...signing,
      ...webhooks,
      ...tail,
    ]);
    expect(plain!.headers['user-agent']).toBe('robot-mcp-kit');
    expect(plain!.headers['content-length']).toBe('10');
    expect(plain!.headers.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
    expect(plain!.headers.connection).toBe('keep-alive');
    expect(plain!.url).toBe('/api/agent/events?x=1');
  });

  it('reports a timeout', async () => {
    server.reply = () => 'hang';
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'nav', timeoutMs: 50 });
    await expect(transport.send(delivery())).resolves.toEqual({ ok: false, error: 'timeout after 50 ms' });
  });

  it('fails sends after close()', async () => {
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'nav' });
    await transport.close();
    await expect(transport.send(delivery())).resolves.toEqual({ ok: false, error: 'transport closed' });
    expect(server.requests).toHaveLength(0);
  });

  it('never logs the secret or the signature', async () => {
    const logger = new MemoryLogger();
    transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'nav', logger });
    server.reply = (_r, i) => ({ status: i === 0 ? 500 : 200 });
    await transport.send(delivery());
    await transport.send(delivery());
    const text = JSON.stringify(logger.entries);
    expect(logger.entries.length).toBeGreaterThan(0);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(server.requests[0]!.headers['x-rvc-signature'] as string);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('describes the target without credentials or query', () => {
    transport = new HttpEventTransport({
      url: 'https://user:pw@app.local:8443/api/agent/events?token=abc',
      secret: SECRET,
      serverName: 'nav',
    });
    expect(transport.description).toBe('https://app.local:8443/api/agent/events');
  });

  it.each([
    ['url', { url: 'not a url' }],
    ['url', { url: 'ftp://127.0.0.1/events' }],
    ['url', { url: '' }],
    ['secret', { secret: '' }],
    ['serverName', { serverName: ' ' }],
    ['timeoutMs', { timeoutMs: 0 }],
  ])('rejects a bad %s with a ConfigError', (variable, bad) => {
    const make = () =>
      new HttpEventTransport({ url: 'http://127.0.0.1:1/x', secret: 's', serverName: 'nav', ...bad });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(new RegExp(`^${variable}: `));
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['1.5', 1500],
    [['3', '9'], 3000],
    [new Date(T0 + 45_000).toUTCString(), 45_000],
    [new Date(T0 - 45_000).toUTCString(), 0],
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['soon', undefined],
    ['12abc', undefined],
  ])('parses %p', (value, expected) => {
    expect(parseRetryAfter(value as string | string[] | undefined, T0)).toBe(expected);
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
