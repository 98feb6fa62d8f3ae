import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type CapabilityServerClass, type RobotMcpApp, runServer } from '@robot-mcp-kit/server';
import { textOf } from '@robot-mcp-kit/server/testing';
import { type HttpListener, type HttpListenerOptions, listenHttp } from '@robot-mcp-kit/server/advanced';
import { sessionIdleMsFromEnv } from '../../src/transports/http-options.js';
import { ArmServer } from './fixtures/arm.server.js';
import { until } from './fixtures/multi-client.js';
import { TeleopServer } from './fixtures/teleop.server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(
  options: HttpListenerOptions,
  ServerClass: CapabilityServerClass = ArmServer,
): Promise<{ app: RobotMcpApp; listener: HttpListener; clock: ManualClock }> {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const app = bootstrap(ServerClass, {
    env: {},
    clock,
    logger,
    eventTransport: new InMemoryEventTransport(),
  });
  const listener = await listenHttp(
    { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    async (transport) => void (await app.connect(transport)),
    logger,
    { clock, ...options },
  );
  cleanups.push(
    () => app.close({ timeoutMs: 500 }),
    () => listener.close(),
  );
  return { app, listener, clock };
}

async function client(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const c = new Client({ name: 'http', version: '1' });
  await c.connect(transport);
  cleanups.push(() => c.close());
  return { client: c, transport };
}

async function start(c: Client, tool: string): Promise<string> {
  const result = (await c.callTool({ name: tool, arguments: {} })) as CallToolResult;
  return (result.structuredContent as { task_id: string }).task_id;
}

describe('streamable-HTTP sessions', () => {
  it('DELETE of a session leaves its tasks running; only its cancelOnDisconnect tasks stop', async () => {
    const { app, listener } = await serve({}, TeleopServer);
    const a = await client(listener.url);
    const b = await client(listener.url);
    const drive = await start(a.client, 'drive');
    const teleop = await start(a.client, 'teleop');
    const theirs = await start(b.client, 'jog');
    expect(listener.sessionCount).toBe(2);
    await a.transport.terminateSession();
    await until(() => app.taskManager.get(teleop)?.state === 'cancelled');
    expect(app.taskManager.get(drive)?.state).toBe('running');
    expect(app.taskManager.get(theirs)?.state).toBe('running');
    expect(listener.sessionCount).toBe(1);
    // another session follows the orphaned task: poll is the truth
    const seen = (await b.client.callTool({
      name: 'get_task',
      arguments: { task_id: drive },
    })) as CallToolResult;
    expect(JSON.parse(textOf(seen))).toMatchObject({ task_id: drive, state: 'running' });
  });

  it('reaps a session with no open request after RMK_SESSION_IDLE_S; its tasks keep running', async () => {
    const { app, listener, clock } = await serve({ env: { RMK_SESSION_IDLE_S: '30' } });
    const a = await client(listener.url);
    const b = await client(listener.url);
    const orphan = await start(a.client, 'drive');
    const alive = await start(b.client, 'watch_people');
    const goneId = a.transport.sessionId!;
    // a's client disappears without DELETE: its GET stream and requests end
    await a.transport.close();
    await until(() => clock.pending >= 1); // the server saw a's last request close: the idle timer runs
    await clock.advance(29_000);
    expect(listener.sessionCount).toBe(2);
    // b keeps its GET stream open, so it is never idle
    await clock.advance(1_000);
    await until(() => listener.sessionCount === 1);
    await clock.advance(60_000);
    expect(listener.sessionCount).toBe(1);
    expect(app.taskManager.get(orphan)?.state).toBe('running');
    expect(app.taskManager.get(alive)?.state).toBe('running');
    const stale = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': goneId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
  });

  it('reaps idle sessions by default (RMK_SESSION_IDLE_S unset = 1800 s)', async () => {
    const { listener, clock } = await serve({ env: {} });
    // one request only (an abandoned initialize), so the one idle timer is armed when it ends
    expect((await initializeOnly(listener.url)).status).toBe(200);
    await until(() => clock.pending >= 1);
    await clock.advance(1_799_000);
    expect(listener.sessionCount).toBe(1);
    await clock.advance(1_000);
    await until(() => listener.sessionCount === 0);
  });

  it('caps concurrent sessions (RMK_MAX_SESSIONS): idle ones make room for new ones; reaped ones free places', async () => {
    const { listener, clock } = await serve({ env: { RMK_MAX_SESSIONS: '5', RMK_SESSION_IDLE_S: '60' } });
    // at the cap, the longest-idle session is closed for the new one (the 503 when every session is
    // busy: transports/session-eviction.test.ts)
    for (let i = 0; i < 8; i += 1) expect((await initializeOnly(listener.url)).status).toBe(200);
    expect(listener.sessionCount).toBe(5);
    // the abandoned initialize-only sessions are reaped after the idle time
    await until(() => clock.pending >= 5);
    await clock.advance(60_000);
    await until(() => listener.sessionCount === 0);
    expect((await initializeOnly(listener.url)).status).toBe(200);
  });

  it('reads RMK_SESSION_IDLE_S in seconds; unset is 1800 s, 0 is never; other values fail fast', () => {
    expect(sessionIdleMsFromEnv({})).toBe(1_800_000);
    expect(sessionIdleMsFromEnv({ RMK_SESSION_IDLE_S: '0' })).toBeUndefined();
    expect(sessionIdleMsFromEnv({ RMK_SESSION_IDLE_S: '1.5' })).toBe(1500);
    expect(() => sessionIdleMsFromEnv({ RMK_SESSION_IDLE_S: '-1' })).toThrow(/RMK_SESSION_IDLE_S: "-1"/);
    expect(() => bootstrap(ArmServer, { env: { RMK_MAX_SESSIONS: '0' } })).toThrow(
      /RMK_MAX_SESSIONS: "0" is not valid; use a whole number from 1 to 100000/,
    );
  });
});

/** POSTs a bare initialize (no initialized notification, no further use): an abandoned session. */
async function initializeOnly(url: string): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  if (res.status === 200) await res.text();
  return res;
}

describe('runServer flags', () => {
  it('--read-only and --allow-tools from argv narrow the tools', async () => {
    const exits: number[] = [];
    const { app, info } = await runServer(ArmServer, {
      argv: ['--read-only', '--allow-tools', 'get_*,watch_*,drive'],
      env: {},
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
      transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
      exit: (code) => exits.push(code),
    });
    cleanups.push(() => app.close({ timeoutMs: 500 }));
    const { client: c } = await client(info.url!);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'cancel_task',
        'get_events',
        'get_pose',
        'get_task',
        'list_tasks',
        'wait_for_event',
        'watch_people',
      ].sort(),
    );
    expect(exits).toEqual([]);
  });

  it('a bad flag stops the start with exit code 1', async () => {
    const exits: number[] = [];
    const write = process.stderr.write;
    let stderr = '';
    process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
    try {
      await expect(
        runServer(ArmServer, {
          argv: ['--allow-tools', 'nothing_*'],
          env: {},
          exit: (code) => exits.push(code),
        }),
      ).rejects.toThrow(/allowTools/);
    } finally {
      process.stderr.write = write;
    }
    expect(exits).toEqual([1]);
    expect(stderr).toMatch(
      /cannot start ArmServer: CONFIG_INVALID: allowTools: pattern "nothing_\*" matches no tool/,
    );
  });
});
