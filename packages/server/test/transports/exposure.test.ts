import { afterEach, describe, expect, it } from '@jest/globals';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp, runServer } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from './raw-http.js';

const apps: RobotMcpApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close({ timeoutMs: 500 });
});

function app(env: Record<string, string>, logger = new MemoryLogger()): RobotMcpApp {
  const created = bootstrap(ArmServer, {
    env,
    logger,
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '0.0.0.0', port: 0 },
  });
  apps.push(created);
  return created;
}

describe('listening on a network address', () => {
  it('refuses to start without authentication, saying how to fix it', async () => {
    await expect(app({}).listen()).rejects.toThrow(
      /^MCP_HOST: "0\.0\.0\.0" is reachable from the network and no authentication is configured.*RMK_AUTH_TOKEN.*RMK_ALLOW_UNAUTHENTICATED=1/,
    );
    await expect(app({}).listen({ host: '::' })).rejects.toThrow(/MCP_HOST: "::"/);
  });

  it('starts with RMK_AUTH_TOKEN; IP-literal hosts pass the Host check, foreign names do not', async () => {
    const info = await app({ RMK_AUTH_TOKEN: 'f00dfeedcafebeef0123' }).listen();
    const url = `http://127.0.0.1:${info.port!}/mcp`;
    const post = (host: string) =>
      rawRequest(url, { method: 'POST', headers: { ...MCP_POST_HEADERS, host }, body: initializeBody() });
    expect((await post(`192.0.2.10:${info.port!}`)).status).toBe(401); // past the Host check, no token
    expect((await post(`[2001:db8::1]:${info.port!}`)).status).toBe(401);
    expect((await post(`robot.evil.example:${info.port!}`)).status).toBe(403);
    expect((await post(`192.0.2.10:${info.port! + 1}`)).status).toBe(403);
  });

  it('starts with RMK_ALLOW_UNAUTHENTICATED=1, with a loud warning', async () => {
    const logger = new MemoryLogger();
    await app({ RMK_ALLOW_UNAUTHENTICATED: '1' }, logger).listen();
    const warning = logger.entries.find(
      (e) => e.level === 'warn' && e.message.startsWith('SECURITY WARNING'),
    );
    expect(warning?.message).toMatch(/WITHOUT AUTHENTICATION/);
    expect(warning?.meta).toMatchObject({ host: '0.0.0.0' });
  });

  it('loopback needs no authentication', async () => {
    const info = await app({}).listen({ host: '127.0.0.1' });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('runServer with MCP_HOST=0.0.0.0 and no auth prints the fix and exits 1', async () => {
    const exits: number[] = [];
    const write = process.stderr.write;
    let stderr = '';
    process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
    try {
      await expect(
        runServer(ArmServer, {
          argv: [],
          env: { MCP_TRANSPORT: 'streamable-http', MCP_HOST: '0.0.0.0', MCP_PORT: '0' },
          logger: new MemoryLogger(),
          eventTransport: new InMemoryEventTransport(),
          exit: (code) => exits.push(code),
        }),
      ).rejects.toThrow(/MCP_HOST/);
    } finally {
      process.stderr.write = write;
    }
    expect(exits).toEqual([1]);
    expect(stderr).toMatch(/cannot start ArmServer: CONFIG_INVALID: MCP_HOST: "0\.0\.0\.0" is reachable/);
  });
});
