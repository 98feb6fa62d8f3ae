import { afterEach, describe, expect, it } from '@jest/globals';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type BootstrapOptions } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from '../transports/raw-http.js';

const TOKEN = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const GOOD = 'good-token-0123456789';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function listen(options: BootstrapOptions<ArmServer>): Promise<{ url: string; logger: MemoryLogger }> {
  const logger = new MemoryLogger();
  const app = bootstrap(ArmServer, {
    env: {},
    logger,
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    ...options,
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return { url: (await app.listen()).url!, logger };
}

const post = (url: string, token: string | undefined) =>
  rawRequest(url, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: initializeBody(),
  });

/** A verifier as the docs' first draft would write it: anything unknown is a plain Error. */
function verifierThrowing(make: () => unknown): OAuthTokenVerifier {
  return {
    verifyAccessToken(token) {
      if (token !== GOOD) return Promise.reject(make());
      return Promise.resolve({
        token,
        clientId: 'alice',
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 600,
      });
    },
  };
}

describe('a verifier rejection is a 401, whatever it throws', () => {
  it.each([
    ['a plain Error', () => new Error('introspection said: inactive')],
    ['the SDK ServerError', () => new ServerError('introspection endpoint down')],
    ['a string', () => 'nope'],
  ])('%s: 401 with WWW-Authenticate, the cause logged; a good token still works', async (_name, make) => {
    const { url, logger } = await listen({ auth: { verifier: verifierThrowing(make) } });
    const refused = await post(url, 'stale-token-0123456789');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="/);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'invalid_token' });
    expect(refused.body).not.toContain('introspection');
    const warned = logger.entries.find((e) => e.level === 'warn' && /token verifier/.test(e.message));
    expect(String(warned?.meta?.error)).toMatch(/introspection|nope/);

    const client = new Client({ name: 'refusals', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${GOOD}` } },
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('InvalidTokenError keeps its own description', async () => {
    const { url } = await listen({
      auth: { verifier: verifierThrowing(() => new InvalidTokenError('Token has been revoked')) },
    });
    const refused = await post(url, 'revoked-token-0123456789');
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({
      error: 'invalid_token',
      error_description: 'Token has been revoked',
    });
  });
});

describe('static token: no OAuth paths, and a missing bearer says how to send one', () => {
  const OAUTH_PROBES: [string, string][] = [
    ['GET', '/.well-known/oauth-protected-resource'],
    ['GET', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/openid-configuration'],
    ['POST', '/register'],
    ['GET', '/authorize'],
    ['POST', '/token'],
  ];

  it('answers 404 on the OAuth discovery and registration paths, without a token', async () => {
    const { url } = await listen({ env: { RMK_AUTH_TOKEN: TOKEN } });
    const { origin } = new URL(url);
    for (const [method, path] of OAUTH_PROBES) {
      const answer = await rawRequest(`${origin}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{"redirect_uris":["http://localhost:1/cb"]}' } : {}),
      });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(JSON.parse(answer.body)).toMatchObject({
        hint: expect.stringContaining('Authorization: Bearer'),
      });
    }
    // the SDK client's own OAuth discovery finds no OAuth here (it threw on the 401 before)
    await expect(discoverOAuthProtectedResourceMetadata(url)).rejects.toThrow(
      /does not implement OAuth 2.0 Protected Resource Metadata/,
    );
    await expect(discoverAuthorizationServerMetadata(origin)).resolves.toBeUndefined();
  });

  it('a request without Authorization gets 401 naming the header and RMK_AUTH_TOKEN', async () => {
    const { url } = await listen({ env: { RMK_AUTH_TOKEN: TOKEN } });
    const none = await post(url, undefined);
    expect(none.status).toBe(401);
    const { error, error_description: description } = JSON.parse(none.body) as Record<string, string>;
    expect(error).toBe('invalid_token');
    expect(description).toContain('send Authorization: Bearer <token>');
    expect(description).toContain('RMK_AUTH_TOKEN');
    expect(none.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="${description}"`,
    );
    expect((await post(url, TOKEN)).status).toBe(200);
  });

  it('with OAuth metadata configured, its routes answer and the others are still 404', async () => {
    const resource = new URL('https://robot.example.org/mcp');
    const { url } = await listen({
      auth: {
        verifier: verifierThrowing(() => new InvalidTokenError('unknown')),
        resourceServerUrl: resource,
        oauthMetadata: {
          issuer: 'https://auth.example.org/',
          authorization_endpoint: 'https://auth.example.org/authorize',
          token_endpoint: 'https://auth.example.org/token',
          response_types_supported: ['code'],
        },
      },
    });
    const { origin } = new URL(url);
    expect((await rawRequest(`${origin}/.well-known/oauth-protected-resource/mcp`, {})).status).toBe(200);
    expect((await rawRequest(`${origin}/register`, { method: 'POST' })).status).toBe(404);
    const none = await post(url, undefined);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain('send Authorization: Bearer <access token>');
    expect(none.headers['www-authenticate']).toContain('resource_metadata="https://robot.example.org/');
  });
});
