import { afterEach, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { until } from '../../../../test/support/until.js';
import { initializeBody, MCP_POST_HEADERS, rawRequest } from './raw-http.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(maxSessions: number): Promise<{ app: RobotMcpApp; url: string; logger: MemoryLogger }> {
  const logger = new MemoryLogger();
  const app = bootstrap(ArmServer, {
    env: { RMK_MAX_SESSIONS: String(maxSessions) },
    logger,
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return { app, url: (await app.listen()).url!, logger };
}

/** What an abandoning client does: initialize, read the answer, never come back. */
async function abandon(url: string): Promise<string> {
  const answer = await initialize(url);
  expect(answer.status).toBe(200);
  return String(answer.headers['mcp-session-id']);
}

/** An SDK client (it keeps a GET stream open after initialize). */
async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'eviction', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

/** Opens the GET stream of a session; resolves once the server answered its headers (the stream is open). */
function openStream(url: string, sessionId: string): Promise<{ close(): void }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET stream answered ${res.statusCode}`));
        res.resume();
        const close = () => req.destroy();
        cleanups.push(async () => close());
        resolve({ close });
      },
    );
    req.on('error', () => undefined);
    req.end();
  });
}

const initialize = (url: string) =>
  rawRequest(url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });

const toolsList = (url: string, sessionId: string) =>
  rawRequest(url, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });

const evictions = (logger: MemoryLogger) =>
  logger.entries.filter((e) => e.message.startsWith('session cap reached; closing the longest-idle session'));

describe('at the session cap, the longest-idle session makes room', () => {
  it('abandoned sessions fill the cap, yet a new client gets in; the oldest idle one is closed (logged)', async () => {
    const { app, url, logger } = await serve(20);
    const abandoned: string[] = [];
    for (let i = 0; i < 40; i += 1) abandoned.push(await abandon(url));
    expect(app.sessionCount).toBe(20);
    expect(evictions(logger).map((e) => e.meta?.session)).toEqual(abandoned.slice(0, 20));
    expect(evictions(logger)[0]?.meta).toMatchObject({ max_sessions: 20, idle_ms: expect.any(Number) });

    const { client } = await connect(url);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(app.sessionCount).toBe(20);
    // the evicted session is gone (404: initialize again); the newest abandoned one is still served
    expect((await toolsList(url, abandoned[20]!)).status).toBe(404);
    expect((await toolsList(url, abandoned[39]!)).status).toBe(200);
  });

  it('never closes a busy session: when every one holds a stream, a new one gets 503 with Retry-After', async () => {
    const { app, url, logger } = await serve(3);
    const ids = [await abandon(url), await abandon(url), await abandon(url)];
    const streams = [];
    for (const id of ids) streams.push(await openStream(url, id));
    const refused = await initialize(url);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(JSON.parse(refused.body).error.message).toMatch(
      /Too many sessions: 3 are open \(RMK_MAX_SESSIONS=3; .*\) and every one is busy/,
    );
    expect(app.sessionCount).toBe(3);
    expect(evictions(logger)).toEqual([]);
    for (const id of ids) expect((await toolsList(url, id)).status).toBe(200);

    // one client goes away without DELETE: its stream closes, its session is idle, a newcomer takes it
    streams[1]!.close();
    await until(async () => (await initialize(url)).status === 200, 'a new session once one is idle');
    expect(evictions(logger).map((e) => e.meta?.session)).toEqual([ids[1]]);
    expect((await toolsList(url, ids[1]!)).status).toBe(404);
    for (const id of [ids[0]!, ids[2]!]) expect((await toolsList(url, id)).status).toBe(200);
  });
});
