import { afterEach, describe, expect, it } from '@jest/globals';
import { request, type IncomingMessage } from 'node:http';
import { InMemoryServerEventBus, McpServer } from '@modelcontextprotocol/server';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { type HttpListener, listenHttp } from '@robot-mcp-kit/server/advanced';
import { VERSION } from '../../../../test/support/mcp-2026.wire-client.js';
import { until } from '../../../../test/support/until.js';
import { LISTEN_STREAM_MAX_BYTES } from '../../src/transports/modern-http.route.js';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from './raw-http.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A streamable-HTTP listener with both legs: 2025 sessions from the kit app, 2026 from a v2 McpServer. */
async function serve(maxSessions: number) {
  const logger = new MemoryLogger();
  const bus = new InMemoryServerEventBus();
  const app = bootstrap(ArmServer, { env: {}, logger, eventTransport: new InMemoryEventTransport() });
  const listener = await listenHttp(
    { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    async (transport) => void (await app.connect(transport)),
    logger,
    {
      maxSessions,
      modernBus: bus,
      modern: () =>
        new McpServer(
          { name: 'listen-test', version: '1' },
          { capabilities: { resources: { subscribe: true, listChanged: true } } },
        ),
    },
  );
  cleanups.push(
    () => app.close({ timeoutMs: 500 }),
    () => listener.close(),
  );
  return { listener, logger, bus };
}

/** A resource URI of 16 KiB, so that a few hundred updates fill any socket buffer. */
const BIG_URI = `tasks://running?${'x'.repeat(16 * 1024)}`;

const listenBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'subscriptions/listen',
  params: {
    notifications: { resourcesListChanged: true, resourceSubscriptions: [BIG_URI] },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': VERSION,
      'io.modelcontextprotocol/clientInfo': { name: 'listen-streams', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

interface Stream {
  readonly status: number;
  readonly response: IncomingMessage;
  close(): void;
}

/** POSTs `subscriptions/listen`; resolves with the answer's head (the stream stays open, unread). */
function listen(listener: HttpListener): Promise<Stream> {
  const target = new URL(listener.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          ...MCP_POST_HEADERS,
          'mcp-protocol-version': VERSION,
          'mcp-method': 'subscriptions/listen',
        },
      },
      (response) => {
        const close = () => req.destroy();
        cleanups.push(async () => close());
        resolve({ status: response.statusCode ?? 0, response, close });
      },
    );
    req.on('error', reject);
    req.end(listenBody);
  });
}

/** Reads a stream to its end, or until the test ends; returns the bytes read so far. */
function drain(stream: Stream): { bytes: number; ended: boolean } {
  const seen = { bytes: 0, ended: false };
  stream.response.on('data', (chunk: Buffer) => (seen.bytes += chunk.length));
  stream.response.on('close', () => (seen.ended = true));
  return seen;
}

describe('MCP 2026 subscriptions/listen streams count against RMK_MAX_SESSIONS', () => {
  it('each stream takes a session place: idle sessions make room, then a stream or session over the cap gets 503', async () => {
    const { listener, logger } = await serve(3);
    for (let i = 0; i < 2; i += 1) {
      expect(
        (
          await rawRequest(listener.url, {
            method: 'POST',
            headers: MCP_POST_HEADERS,
            body: initializeBody(),
          })
        ).status,
      ).toBe(200);
    }
    const streams: Stream[] = [];
    for (let i = 0; i < 3; i += 1) streams.push(await listen(listener));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(listener.listenStreamCount).toBe(3);
    expect(listener.sessionCount).toBe(0); // both idle sessions made room
    expect(logger.entries.filter((e) => e.message.startsWith('session cap reached; closing')).length).toBe(2);

    const over = await listen(listener);
    expect(over.status).toBe(503);
    expect(over.response.headers['retry-after']).toBe('30');
    const session = await rawRequest(listener.url, {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: initializeBody(),
    });
    expect(session.status).toBe(503);
    expect(JSON.parse(session.body).error.message).toContain('subscriptions/listen stream counts as one');

    streams[0]!.close();
    await until(() => listener.listenStreamCount === 2, 'the closed stream to free its place');
    expect((await listen(listener)).status).toBe(200);
  });

  it('a stream whose client stops reading is closed once over its byte bound; a reading one is not', async () => {
    const { listener, logger, bus } = await serve(10);
    const stalled = await listen(listener);
    const reading = await listen(listener);
    expect([stalled.status, reading.status]).toEqual([200, 200]);
    stalled.response.pause();
    const read = drain(reading);
    const closed = () =>
      logger.entries.find((e) => e.message.startsWith('closing a subscriptions/listen stream'));
    let published = 0;
    await until(async () => {
      for (let i = 0; i < 8; i += 1) bus.publish({ kind: 'resource_updated', uri: BIG_URI });
      published += 8;
      await new Promise<void>((resolve) => setImmediate(resolve));
      return closed() !== undefined || published > 4096; // 64 MiB: far past any socket buffer
    }, 'the stalled stream to be closed');
    const warning = closed();
    expect(warning?.level).toBe('warn');
    expect(Number(warning?.meta?.buffered_bytes)).toBeGreaterThan(LISTEN_STREAM_MAX_BYTES);
    expect(Number(warning?.meta?.buffered_bytes)).toBeLessThan(LISTEN_STREAM_MAX_BYTES + 64 * 1024);
    await until(() => listener.listenStreamCount === 1, 'the stalled stream to leave the count');
    // the reading client got everything published so far, and its stream is still open
    await until(() => read.bytes > published * 16 * 1024, 'the reading client to catch up');
    expect(read.ended).toBe(false);
  });
});
