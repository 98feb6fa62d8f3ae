import { afterEach, describe, expect, it } from '@jest/globals';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import {
  bootstrap,
  type BootstrapOptions,
  type CapabilityServerClass,
  type RobotMcpApp,
} from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { RoverServer } from '../fixtures/rover.server.js';
import { TASKS, textOf, VERSION, WireClient } from '../../../../test/support/mcp-2026.wire-client.js';
import { rawRequest } from './raw-http.js';

const RESOURCE = new URL('https://robot.example.org/mcp');
const verifier: OAuthTokenVerifier = {
  verifyAccessToken(token) {
    const known: Record<string, string> = {
      'alice-token-0123456789': 'alice',
      'bob-token-0123456789ab': 'bob',
    };
    const clientId = known[token];
    if (!clientId) return Promise.reject(new InvalidTokenError('unknown token'));
    return Promise.resolve({
      token,
      clientId,
      scopes: ['robot'],
      expiresAt: Math.floor(Date.now() / 1000) + 600,
      resource: RESOURCE,
    });
  },
};

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(
  options: BootstrapOptions<object> = {},
  ServerClass: CapabilityServerClass = RoverServer,
): Promise<{ app: RobotMcpApp; url: string }> {
  const app = bootstrap(ServerClass, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    ...options,
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  const info = await app.listen();
  return { app, url: info.url! };
}

function discoverBody(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': VERSION,
  'mcp-method': 'server/discover',
};

describe('the MCP 2026-07-28 leg behind the same guards as the 2025 sessions', () => {
  it('refuses a foreign Host with 403 before the request reaches the v2 handler', async () => {
    const { url } = await serve();
    const evil = await rawRequest(url, {
      method: 'POST',
      headers: { ...MODERN_HEADERS, host: 'evil.example.com' },
      body: discoverBody(),
    });
    expect(evil.status).toBe(403);
    const port = new URL(url).port;
    const good = await rawRequest(url, {
      method: 'POST',
      headers: { ...MODERN_HEADERS, host: `127.0.0.1:${port}` },
      body: discoverBody(),
    });
    expect(good.status).toBe(200);
    expect(good.body).toContain(VERSION);
  });

  it('requires the bearer token; a task handle is bound to the principal that created it', async () => {
    const { app, url } = await serve({ auth: { verifier, resourceServerUrl: RESOURCE } });
    const anonymous = await rawRequest(url, {
      method: 'POST',
      headers: MODERN_HEADERS,
      body: discoverBody(),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer /);

    const alice = new WireClient(url, true, { authorization: 'Bearer alice-token-0123456789' });
    const bob = new WireClient(url, true, { authorization: 'Bearer bob-token-0123456789ab' });
    const created = await alice.result('tools/call', { name: 'drive', arguments: { distance_m: 1 } });
    expect(created.resultType).toBe('task');
    const [kitTask] = app.taskManager.list();
    expect(app.owners.ofTask(kitTask!.task_id)).toBe('alice');

    expect((await alice.result('tasks/get', { taskId: created.taskId })).status).toBe('working');
    const stolen = await bob.request('tasks/get', { taskId: created.taskId });
    expect(stolen.error).toMatchObject({ code: -32602 });
    const stolenCancel = await bob.request('tasks/cancel', { taskId: created.taskId });
    expect(stolenCancel.error).toMatchObject({ code: -32602 });
    expect(app.taskManager.get(kitTask!.task_id)?.state).toBe('running');

    // A plain (non-extension) call of bob records bob as the principal of his task.
    const plain = await new WireClient(url, false, { authorization: 'Bearer bob-token-0123456789ab' }).result(
      'tools/call',
      { name: 'drive', arguments: { distance_m: 1 } },
    );
    const bobTask = (JSON.parse(textOf(plain)) as { task_id: string }).task_id;
    expect(app.owners.ofTask(bobTask)).toBe('bob');
    expect(TASKS).toBe('io.modelcontextprotocol/tasks');
  });

  it('applies the tool policy (RMK_READ_ONLY) to the 2026 leg: actuating tools are neither listed nor callable', async () => {
    const { app, url } = await serve({ env: { RMK_READ_ONLY: '1' } });
    const client = new WireClient(url, true);
    const { tools } = (await client.result('tools/list')) as { tools: { name: string }[] };
    const names = tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('drive');
    const refused = await client.request('tools/call', { name: 'drive', arguments: { distance_m: 1 } });
    expect(refused.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Tool drive not found/),
    });
    expect(app.taskManager.list()).toHaveLength(0);
  });

  it('applies maxConcurrent to 2026 callers with and without the extension: the refusal starts nothing', async () => {
    const { app, url } = await serve({}, ArmServer);
    const withTasks = new WireClient(url, true);
    const created = await withTasks.result('tools/call', { name: 'move_arm', arguments: {} });
    expect(created.resultType).toBe('task');
    const first = (created._meta as Record<string, string>)['robot-mcp-kit/task_id'];
    for (const client of [withTasks, new WireClient(url, false)]) {
      const refused = await client.result('tools/call', { name: 'move_arm', arguments: {} });
      expect(refused.resultType).not.toBe('task');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain(
        `move_arm allows 1 running task(s) at once and 1 are running: ${first}`,
      );
    }
    expect(app.taskManager.list().filter((t) => t.tool === 'move_arm')).toHaveLength(1);
  });
});
