import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from './raw-http.js';

const apps: RobotMcpApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close({ timeoutMs: 500 });
});

async function listen(
  kind: 'sse' | 'streamable-http',
  env: Record<string, string> = {},
): Promise<{ app: RobotMcpApp; url: string; port: number }> {
  const app = bootstrap(ArmServer, {
    env,
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
    transport: { kind, host: '127.0.0.1', port: 0 },
  });
  apps.push(app);
  const info = await app.listen();
  return { app, url: info.url!, port: info.port! };
}

const initialize = (url: string, headers: Record<string, string>) =>
  rawRequest(url, { method: 'POST', headers: { ...MCP_POST_HEADERS, ...headers }, body: initializeBody() });

const errorOf = (body: string) => (JSON.parse(body) as { error: { code: number; message: string } }).error;

describe('Host and Origin validation on streamable HTTP (DNS-rebinding protection)', () => {
  it('refuses Host/Origin evil.example.com with 403 and a JSON-RPC error naming the setting; no session opens', async () => {
    const { app, url } = await listen('streamable-http');
    const res = await initialize(url, { host: 'evil.example.com', origin: 'http://evil.example.com' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(errorOf(res.body).message).toBe(
      'Forbidden: Host "evil.example.com" is not allowed (DNS-rebinding protection); ' +
        'to accept it, add it to RMK_ALLOWED_HOSTS (comma-separated name or name:port)',
    );
    expect(app.sessionCount).toBe(0);
  });

  it('accepts the loopback names with the listening port, not with another port', async () => {
    const { url, port } = await listen('streamable-http');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const res = await initialize(url, { host, origin: `http://${host}` });
      expect([host, res.status]).toEqual([host, 200]);
    }
    expect((await initialize(url, { host: `localhost:${port + 1}` })).status).toBe(403);
  });

  it('refuses a foreign Origin even with a good Host, naming RMK_ALLOWED_ORIGINS; accepts loopback origins', async () => {
    const { url, port } = await listen('streamable-http');
    const host = `127.0.0.1:${port}`;
    const evil = await initialize(url, { host, origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    expect(errorOf(evil.body).message).toMatch(
      /Origin "http:\/\/evil.example.com" is not allowed.*RMK_ALLOWED_ORIGINS/,
    );
    expect((await initialize(url, { host, origin: 'null' })).status).toBe(403);
    expect((await initialize(url, { host, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await initialize(url, { host })).status).toBe(200); // no Origin: not a browser
  });

  it('RMK_ALLOWED_HOSTS and RMK_ALLOWED_ORIGINS extend the lists', async () => {
    const { url, port } = await listen('streamable-http', {
      RMK_ALLOWED_HOSTS: 'robot.local, lab.example.org:8443',
      RMK_ALLOWED_ORIGINS: 'https://ops.example.org',
    });
    expect((await initialize(url, { host: `robot.local:${port}` })).status).toBe(200);
    expect((await initialize(url, { host: 'lab.example.org:8443' })).status).toBe(200);
    expect((await initialize(url, { host: 'lab.example.org:9999' })).status).toBe(403);
    const host = `127.0.0.1:${port}`;
    expect((await initialize(url, { host, origin: 'https://ops.example.org' })).status).toBe(200);
    expect((await initialize(url, { host, origin: 'http://ops.example.org' })).status).toBe(403);
  });

  it('fails fast on a malformed allowed host or origin, naming the variable', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_ALLOWED_HOSTS: 'http://robot.local/x' } })).toThrow(
      /RMK_ALLOWED_HOSTS: "http:\/\/robot.local\/x" is not a host; use name or name:port/,
    );
    expect(() => bootstrap(ArmServer, { env: { RMK_ALLOWED_ORIGINS: 'ops.example.org' } })).toThrow(
      /RMK_ALLOWED_ORIGINS: "ops.example.org" is not an origin/,
    );
    expect(() => bootstrap(ArmServer, { env: {}, http: { allowedHosts: ['a b'] } })).toThrow(
      /^allowedHosts: /,
    );
  });
});

describe('Host and Origin validation on SSE', () => {
  it('refuses GET /sse and POST /messages from a foreign Host; the SDK SSE client works on loopback', async () => {
    const { app, url, port } = await listen('sse');
    const get = await rawRequest(url, {
      headers: { host: 'evil.example.com', origin: 'http://evil.example.com', accept: 'text/event-stream' },
    });
    expect(get.status).toBe(403);
    expect(errorOf(get.body).message).toMatch(/RMK_ALLOWED_HOSTS/);
    const post = await rawRequest(`http://127.0.0.1:${port}/messages?sessionId=x`, {
      method: 'POST',
      headers: { host: 'evil.example.com', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(403);
    const client = new Client({ name: 'sse', version: '1' });
    await client.connect(new SSEClientTransport(new URL(url)));
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect(app.sessionCount).toBe(1);
    } finally {
      await client.close();
    }
  });
});
