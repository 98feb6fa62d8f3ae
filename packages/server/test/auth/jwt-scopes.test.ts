import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { importJWK, SignJWT, decodeJwt } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Clock, ConfigError, systemClock } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import {
  bootstrap,
  CapabilityServer,
  type BootstrapOptions,
  type RobotMcpApp,
  Tool,
} from '@robot-mcp-kit/server';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from '../transports/raw-http.js';
import { AuthorizationServer, signingKey } from './fixtures/authorization.server.js';

const RESOURCE = 'https://robot-7.example.org/mcp';

@CapabilityServer({ name: 'scoped', version: '0.0.1' })
class ScopedServer {
  readonly calls: string[] = [];

  @Tool({ description: 'Where the robot is', annotations: { readOnlyHint: true } })
  getPose(): string {
    this.calls.push('get_pose');
    return 'x=0';
  }

  @Tool({ description: 'Blink the light', actuates: true })
  blink(): string {
    this.calls.push('blink');
    return 'blinked';
  }

  @Tool({ description: 'Stop now (latches)', estop: true })
  stop(): string {
    this.calls.push('stop');
    return 'stopped';
  }

  @Tool({ description: 'Re-arm after a stop', rearm: true })
  rearm(): string {
    this.calls.push('rearm');
    return 'armed';
  }

  @Tool({ description: 'Open the gripper', actuates: true, scope: 'robot:gripper' })
  openGripper(): string {
    this.calls.push('open_gripper');
    return 'open';
  }
}

let as: AuthorizationServer;
beforeAll(async () => {
  as = await AuthorizationServer.start();
});
afterAll(() => as.close());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function listen(options: BootstrapOptions<ScopedServer> = {}) {
  const instance = new ScopedServer();
  const logger = new MemoryLogger();
  const app: RobotMcpApp = bootstrap(ScopedServer, {
    env: { RMK_AUTH_ISSUER: as.issuer, RMK_RESOURCE_URL: RESOURCE },
    instance,
    logger,
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    ...options,
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  const info = await app.listen();
  return { app, url: info.url!, instance, logger };
}

async function connect(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'scoped', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

/** A raw tools/list (initialize first) with this token: the status of the HTTP answer. */
async function initializeWith(url: string, token: string) {
  return rawRequest(url, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${token}` },
    body: initializeBody(),
  });
}

describe('JWT access tokens of an issuer (RMK_AUTH_ISSUER), scopes per tool', () => {
  it('serves the protected resource metadata naming the issuer and the scopes', async () => {
    const { url } = await listen();
    const metadata = await rawRequest(new URL('/.well-known/oauth-protected-resource/mcp', url).href, {});
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.body)).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [as.issuer],
      scopes_supported: ['robot:read', 'robot:actuate', 'robot:rearm'],
    });
    const none = await rawRequest(url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain(
      'resource_metadata="https://robot-7.example.org/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('runs a tool the token has the scope for; refuses one it lacks with a step-up 403, nothing run', async () => {
    const { url, instance } = await listen();
    const reader = await connect(url, await as.token(RESOURCE, ['robot:read']));
    const pose = (await reader.callTool({ name: 'get_pose', arguments: {} })) as CallToolResult;
    expect(pose.isError).toBeFalsy();
    // tools/list still shows the actuating tools
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['blink', 'open_gripper']));

    const readToken = await as.token(RESOURCE, ['robot:read']);
    const init = await initializeWith(url, readToken);
    const session = init.headers['mcp-session-id'] as string;
    const call = (name: string, token: string) =>
      rawRequest(url, {
        method: 'POST',
        headers: {
          ...MCP_POST_HEADERS,
          authorization: `Bearer ${token}`,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: {} },
        }),
      });
    const refused = await call('blink', readToken);
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toMatch(
      /^Bearer error="insufficient_scope", scope="robot:actuate", resource_metadata="https:\/\/robot-7\.example\.org\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(JSON.parse(refused.body)).toMatchObject({
      id: 7,
      error: { message: expect.stringContaining('robot:actuate') },
    });

    // a tool with its own scope needs exactly that one, even from a token that may actuate
    const actuator = await as.token(RESOURCE, ['robot:read', 'robot:actuate']);
    const gripper = await call('open_gripper', actuator);
    expect(gripper.status).toBe(403);
    expect(gripper.headers['www-authenticate']).toContain('scope="robot:gripper"');
    expect(instance.calls).toEqual(['get_pose']);

    const driver = await connect(url, actuator);
    const blinked = (await driver.callTool({ name: 'blink', arguments: {} })) as CallToolResult;
    expect(blinked.content).toEqual([{ type: 'text', text: 'blinked' }]);
    expect(instance.calls).toEqual(['get_pose', 'blink']);
  });

  it('lets any valid token latch the e-stop; re-arming needs robot:rearm', async () => {
    const { url, instance } = await listen();
    const nobody = await connect(url, await as.token(RESOURCE, []));
    expect((await nobody.callTool({ name: 'stop', arguments: {} })).isError).toBeFalsy();
    const actuator = await connect(url, await as.token(RESOURCE, ['robot:read', 'robot:actuate']));
    const refused = (await actuator.callTool({ name: 'blink', arguments: {} })) as CallToolResult;
    expect(refused.structuredContent).toMatchObject({ error_code: 'ESTOPPED' });
    await expect(actuator.callTool({ name: 'rearm', arguments: {} })).rejects.toThrow(
      /needs the scope robot:rearm.*insufficient_scope/,
    );
    const operator = await connect(url, await as.token(RESOURCE, ['robot:rearm']));
    expect((await operator.callTool({ name: 'rearm', arguments: {} })).isError).toBeFalsy();
    expect((await actuator.callTool({ name: 'blink', arguments: {} })).isError).toBeFalsy();
    expect(instance.calls).toEqual(['stop', 'rearm', 'blink']);
  });

  it('refuses a token for another resource (aud), an expired one, one of another issuer, a bad signature', async () => {
    let skewMs = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + skewMs };
    const { url } = await listen({ clock });
    const expectRefused = async (token: string, description: RegExp) => {
      const answer = await initializeWith(url, token);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
      expect(answer.headers['www-authenticate']).toMatch(description);
    };
    const good = await as.token(RESOURCE, ['robot:read']);
    expect((await initializeWith(url, good)).status).toBe(200);

    await expectRefused(await as.token('https://other-robot.example.org/mcp', ['robot:read']), /\(aud\)/);

    const other = await AuthorizationServer.start({ issuerPath: '/other', keys: [...as.signingKeys] });
    cleanups.push(() => other.close());
    await expectRefused(await other.token(RESOURCE, ['robot:read']), /\(iss\)/);

    // the right claims and key id, signed with a key the issuer never had
    const claims = decodeJwt(good);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: as.signingKeys[0]!.kid! })
      .sign(await importJWK(await signingKey('key-1'), 'ES256'));
    await expectRefused(forged, /signature/);
    const [header, , signature] = good.split('.');
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'robot:read robot:actuate' })).toString(
      'base64url',
    );
    await expectRefused(`${header}.${widened}.${signature}`, /signature/);

    skewMs = 2 * 3600_000; // the kit's clock is two hours on: the 10-minute token has expired
    await expectRefused(good, /expired/);
  });

  it('accepts a token signed with a new key after the issuer rotates its keys (the JWKS is fetched again)', async () => {
    const { url } = await listen({
      auth: { issuer: as.issuer, resourceServerUrl: new URL(RESOURCE), jwksCooldownMs: 0 },
    });
    const before = await as.token(RESOURCE, ['robot:read']);
    expect((await initializeWith(url, before)).status).toBe(200); // the JWKS with key-1 is cached now
    await as.rotate('key-2');
    const after = await as.token(RESOURCE, ['robot:read']);
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString())).toMatchObject({
      kid: 'key-2',
    });
    expect((await initializeWith(url, after)).status).toBe(200);
  });
});

describe('configuration of the issuer', () => {
  const start = (env: NodeJS.ProcessEnv) =>
    bootstrap(ScopedServer, {
      env,
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
    });

  it('fails fast on missing or bad settings, naming the variable and the fix', () => {
    expect(() => start({ RMK_AUTH_ISSUER: as.issuer })).toThrow(/RMK_AUTH_ISSUER: needs RMK_RESOURCE_URL/);
    expect(() => start({ RMK_RESOURCE_URL: RESOURCE })).toThrow(
      /RMK_RESOURCE_URL: is set but RMK_AUTH_ISSUER is not/,
    );
    expect(() => start({ RMK_AUTH_ISSUER: 'http://auth.example.org', RMK_RESOURCE_URL: RESOURCE })).toThrow(
      /RMK_AUTH_ISSUER: "http:\/\/auth\.example\.org" is not an issuer; use an absolute https:\/\//,
    );
    expect(() =>
      start({ RMK_AUTH_ISSUER: as.issuer, RMK_RESOURCE_URL: RESOURCE, RMK_SCOPE_ACTUATE: 'robot drive' }),
    ).toThrow(/RMK_SCOPE_ACTUATE: "robot drive" is not a scope name/);
    expect(() =>
      start({ RMK_AUTH_ISSUER: as.issuer, RMK_RESOURCE_URL: RESOURCE, RMK_AUTH_TOKEN: 'a'.repeat(32) }),
    ).toThrow(ConfigError);
  });

  it('refuses to listen when the issuer serves no metadata', async () => {
    const app = bootstrap(ScopedServer, {
      env: { RMK_AUTH_ISSUER: `${as.issuer}/nowhere`, RMK_RESOURCE_URL: RESOURCE },
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
      transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    });
    cleanups.push(() => app.close({ timeoutMs: 500 }));
    await expect(app.listen()).rejects.toThrow(
      /RMK_AUTH_ISSUER \(auth.issuer\): .*serves no authorization server metadata/,
    );
  });
});
