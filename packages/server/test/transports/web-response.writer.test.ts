import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { until } from '../features/fixtures/multi-client.js';
import { serveWebTransport } from '../../src/transports/web-response.writer.js';
import { initializeBody, MCP_POST_HEADERS } from './raw-http.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** A node:http server whose every request goes to `handle`; its base URL. */
async function listen(handle: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handle);
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A stateful web-standard transport with an echo of every request answered by `answer`. */
function sessionTransport(): WebStandardStreamableHTTPServerTransport {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'session-1' });
  transport.onmessage = (message) => {
    if (!('id' in message) || !('method' in message)) return;
    const result =
      message.method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 't', version: '1' } }
        : {};
    void transport.send({ jsonrpc: '2.0', id: message.id, result });
  };
  return transport;
}

/** Opens a GET stream; resolves with the response once its headers arrived. */
function openStream(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    request(url, { method: 'GET', headers }, resolve).on('error', reject).end();
  });
}

describe('serveWebTransport (node:http ⇄ the web-standard transport)', () => {
  it('answers a POST with the transport status, headers and body, from the parsed body it is given', async () => {
    const transport = sessionTransport();
    await transport.start();
    const url = await listen(
      (req, res) => void serveWebTransport(transport, req, res, JSON.parse(initializeBody())),
    );
    const res = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe('session-1');
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(await res.text()).toMatch(/"serverInfo":\{"name":"t"/);
  });

  it('streams a GET event stream as it is written, and frees it when the client goes away', async () => {
    const transport = sessionTransport();
    await transport.start();
    const url = await listen(async (req, res) => {
      const body = req.method === 'POST' ? JSON.parse(initializeBody()) : undefined;
      await serveWebTransport(transport, req, res, body);
    });
    await (await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS })).text();
    const headers = {
      accept: 'text/event-stream',
      'mcp-session-id': 'session-1',
      'mcp-protocol-version': '2025-11-25',
    };
    const first = await openStream(`${url}/mcp`, headers);
    expect(first.statusCode).toBe(200);
    let received = '';
    first.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await transport.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'hi' },
    });
    await until(() => received.includes('"data":"hi"'), 'the notification on the open GET stream');
    first.destroy();
    // The SDK allows one GET stream per session: a second one is refused (409) until the first
    // is cancelled, which the writer does when the client's connection closes.
    await until(async () => {
      const again = await openStream(`${url}/mcp`, headers);
      again.destroy();
      return again.statusCode === 200;
    }, 'a new GET stream accepted once the first client went away');
  });

  it('answers 500 with a JSON-RPC error when the transport throws, and nothing else', async () => {
    const broken = {
      handleRequest: () => Promise.reject(new Error('store offline')),
    } as unknown as WebStandardStreamableHTTPServerTransport;
    const url = await listen((req, res) => void serveWebTransport(broken, req, res, {}));
    const res = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal error: store offline' },
      id: null,
    });
  });
});
