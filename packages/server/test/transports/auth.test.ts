import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type BootstrapOptions, type RobotMcpApp } from '@robot-mcp-kit/server';
import { StaticTokenVerifier } from '@robot-mcp-kit/server/advanced';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from './raw-http.js';

const TOKEN = 'a3f1c9e07b5d4e2a8c6b1f0d9e7a5c3b';
const RESOURCE = new URL('https://robot.example.org/mcp');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function listen(
  kind: 'sse' | 'streamable-http',
  options: BootstrapOptions<ArmServer> = {},
): Promise<{ app: RobotMcpApp; url: string; logger: MemoryLogger }> {
  const logger = new MemoryLogger();
  const app = bootstrap(ArmServer, {
    env: {},
    logger,
    eventTransport: new InMemoryEventTransport(),
    transport: { kind, host: '127.0.0.1', port: 0 },
    ...options,
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  const info = await app.listen();
  return { app, url: info.url!, logger };
}

async function connect(url: string, token: string, kind: 'sse' | 'streamable-http' = 'streamable-http') {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  const transport =
    kind === 'sse'
      ? new SSEClientTransport(new URL(url), { requestInit })
      : new StreamableHTTPClientTransport(new URL(url), { requestInit });
  const client = new Client({ name: 'auth', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

async function start(client: Client): Promise<CallToolResult> {
  return (await client.callTool({ name: 'watch_people', arguments: {} })) as CallToolResult;
}

/** Two principals with tokens for this server, one token issued for another resource. */
const verifier: OAuthTokenVerifier = {
  verifyAccessToken(token) {
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const known: Record<string, { clientId: string; resource: URL }> = {
      'alice-token-0123456789': { clientId: 'alice', resource: RESOURCE },
      'bob-token-0123456789ab': { clientId: 'bob', resource: RESOURCE },
      'elsewhere-token-012345': { clientId: 'mallory', resource: new URL('https://other.example.org/mcp') },
    };
    const entry = known[token];
    if (!entry) return Promise.reject(new InvalidTokenError('unknown token'));
    return Promise.resolve({ token, scopes: ['robot'], expiresAt, ...entry });
  },
};

describe('static bearer token (RMK_AUTH_TOKEN)', () => {
  it('refuses requests without the token (401, WWW-Authenticate) and accepts it on every request', async () => {
    const { app, url } = await listen('streamable-http', { env: { RMK_AUTH_TOKEN: TOKEN } });
    const none = await rawRequest(url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    const wrong = await rawRequest(url, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      body: initializeBody(),
    });
    expect(wrong.status).toBe(401);
    expect(app.sessionCount).toBe(0);

    const { client, transport } = await connect(url, TOKEN);
    const started = await start(client);
    const taskId = (started.structuredContent as { task_id: string }).task_id;
    // the principal is kept by the server, not in the TaskInfo of the wire contract (spec §3 fields,
    // and the event feed's feed_cursor of the MCP answer)
    expect(app.owners.ofTask(taskId)).toBe('static-token');
    expect(Object.keys(started.structuredContent!).sort()).toEqual(
      [
        'created_at',
        'est_duration_s',
        'failure',
        'feed_cursor',
        'progress',
        'result',
        'server',
        'state',
        'task_id',
        'tool',
        'triggers',
        'updated_at',
      ].sort(),
    );
    // a request of the same session without the token is refused too
    const later = await rawRequest(url, {
      method: 'POST',
      headers: {
        ...MCP_POST_HEADERS,
        'mcp-session-id': (transport as StreamableHTTPClientTransport).sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(later.status).toBe(401);
  });

  it('guards SSE too', async () => {
    const { app, url } = await listen('sse', { env: { RMK_AUTH_TOKEN: TOKEN } });
    expect((await rawRequest(url, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
    const { client } = await connect(url, TOKEN, 'sse');
    const taskId = ((await start(client)).structuredContent as { task_id: string }).task_id;
    expect(app.owners.ofTask(taskId)).toBe('static-token');
  });

  it('refuses a short token at start-up', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_AUTH_TOKEN: 'secret' } })).toThrow(ConfigError);
    expect(() => bootstrap(ArmServer, { env: { RMK_AUTH_TOKEN: 'secret' } })).toThrow(
      /RMK_AUTH_TOKEN: use a random token of at least 16 characters/,
    );
  });

  it('StaticTokenVerifier compares in constant time and rejects anything else', async () => {
    const v = new StaticTokenVerifier(TOKEN);
    await expect(v.verifyAccessToken(TOKEN)).resolves.toMatchObject({ clientId: 'static-token', scopes: [] });
    await expect(v.verifyAccessToken(`${TOKEN}x`)).rejects.toThrow(InvalidTokenError);
    await expect(v.verifyAccessToken('')).rejects.toThrow(InvalidTokenError);
  });
});

describe('pluggable verifier (auth option): requireBearerAuth with expectedResource', () => {
  const oauthMetadata = {
    issuer: 'https://auth.example.org/',
    authorization_endpoint: 'https://auth.example.org/authorize',
    token_endpoint: 'https://auth.example.org/token',
    response_types_supported: ['code'],
  };

  it('publishes protected resource metadata and points to it from 401s', async () => {
    const { url } = await listen('streamable-http', {
      auth: { verifier, resourceServerUrl: RESOURCE, oauthMetadata, scopesSupported: ['robot'] },
    });
    const base = new URL(url);
    const meta = await rawRequest(`${base.origin}/.well-known/oauth-protected-resource/mcp`, {});
    expect(meta.status).toBe(200);
    expect(JSON.parse(meta.body)).toMatchObject({
      resource: RESOURCE.href,
      authorization_servers: ['https://auth.example.org/'],
      scopes_supported: ['robot'],
    });
    const none = await rawRequest(url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain(
      'resource_metadata="https://robot.example.org/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('refuses a token issued for another resource; records the principal of each task', async () => {
    const { app, url, logger } = await listen('streamable-http', {
      auth: { verifier, resourceServerUrl: RESOURCE },
    });
    const elsewhere = await rawRequest(url, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, authorization: 'Bearer elsewhere-token-012345' },
      body: initializeBody(),
    });
    expect(elsewhere.status).toBe(401);
    expect(JSON.parse(elsewhere.body)).toMatchObject({
      error_description: 'Token was not issued for this resource',
    });
    const alice = await connect(url, 'alice-token-0123456789');
    const bob = await connect(url, 'bob-token-0123456789ab');
    const a = ((await start(alice.client)).structuredContent as { task_id: string }).task_id;
    const b = ((await start(bob.client)).structuredContent as { task_id: string }).task_id;
    expect([app.owners.ofTask(a), app.owners.ofTask(b)]).toEqual(['alice', 'bob']);
    expect(
      logger.entries.find((e) => e.message === 'task started' && e.meta?.task_id === a)?.meta,
    ).toMatchObject({
      principal: 'alice',
    });
    // bob cannot use alice's session id
    const hijack = await rawRequest(url, {
      method: 'POST',
      headers: {
        ...MCP_POST_HEADERS,
        authorization: 'Bearer bob-token-0123456789ab',
        'mcp-session-id': (alice.transport as StreamableHTTPClientTransport).sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
  });
});
