import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core';
import {
  bootstrap,
  type HttpListener,
  type HttpListenerOptions,
  listenHttp,
  type RobotMcpApp,
  runServer,
  sessionIdleMsFromEnv,
} from '@robot-mcp-kit/server';
import { ArmServer } from './fixtures/arm.server.js';
import { until } from './fixtures/multi-client.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(
  options: HttpListenerOptions,
): Promise<{ app: RobotMcpApp; listener: HttpListener; clock: ManualClock }> {
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const app = bootstrap(ArmServer, { env: {}, clock, logger, eventTransport: new InMemoryEventTransport() });
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
  it('DELETE of a session cancels its tasks, not those of another session', async () => {
    const { app, listener } = await serve({});
    const a = await client(listener.url);
    const b = await client(listener.url);
    const mine = await start(a.client, 'drive');
    const theirs = await start(b.client, 'watch_people');
    expect(listener.sessionCount).toBe(2);
    await a.transport.terminateSession();
    await until(() => app.taskManager.get(mine)?.state === 'cancelled');
    expect(app.taskManager.get(theirs)?.state).toBe('running');
    expect(listener.sessionCount).toBe(1);
  });

  it('closes a session with no open request for RMK_SESSION_IDLE_S and cancels its tasks', async () => {
    const { app, listener, clock } = await serve({ env: { RMK_SESSION_IDLE_S: '30' } });
    const a = await client(listener.url);
    const b = await client(listener.url);
    const gone = await start(a.client, 'drive');
    const alive = await start(b.client, 'watch_people');
    // a's client disappears without DELETE: its GET stream and requests end
    await a.transport.close();
    await until(() => clock.pending >= 1); // the server saw a's last request close: the idle timer runs
    await clock.advance(29_000);
    expect(app.taskManager.get(gone)?.state).toBe('running');
    // b keeps its GET stream open, so it is never idle
    await clock.advance(1_000);
    await until(() => app.taskManager.get(gone)?.state === 'cancelled');
    await clock.advance(60_000);
    expect(listener.sessionCount).toBe(1);
    expect(app.taskManager.get(alive)?.state).toBe('running');
    const still = (await b.client.callTool({
      name: 'get_task',
      arguments: { task_id: alive },
    })) as CallToolResult;
    expect(still.isError).toBeFalsy();
  });

  it('reads RMK_SESSION_IDLE_S in seconds; unset or 0 is never; other values fail fast', () => {
    expect(sessionIdleMsFromEnv({})).toBeUndefined();
    expect(sessionIdleMsFromEnv({ RMK_SESSION_IDLE_S: '0' })).toBeUndefined();
    expect(sessionIdleMsFromEnv({ RMK_SESSION_IDLE_S: '1.5' })).toBe(1500);
    expect(() => sessionIdleMsFromEnv({ RMK_SESSION_IDLE_S: '-1' })).toThrow(/RMK_SESSION_IDLE_S: "-1"/);
  });
});

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
