import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type CapabilityServerClass, type RobotMcpApp } from '@robot-mcp-kit/server';
import { NavigationServer } from '../../examples/navigation/src/navigation.server.js';
import { PerceptionWatcherServer } from '../../examples/perception-watcher/src/perception-watcher.server.js';
import { SleeperServer } from '../../examples/sleeper/src/sleeper.server.js';

const EXAMPLES: [string, CapabilityServerClass<object>, string][] = [
  ['sleeper', SleeperServer, 'Sleeper'],
  ['navigation', NavigationServer as CapabilityServerClass<object>, 'Navigation'],
  ['perception', PerceptionWatcherServer as CapabilityServerClass<object>, 'Perception watcher'],
];

let apps: RobotMcpApp[] = [];
afterEach(async () => {
  await Promise.allSettled(apps.map((app) => app.close({ timeoutMs: 500 })));
  apps = [];
});

function app(ServerClass: CapabilityServerClass<object>): RobotMcpApp {
  const made = bootstrap(ServerClass, {
    env: {},
    eventTransport: new InMemoryEventTransport(),
    logger: new MemoryLogger(),
  });
  apps.push(made);
  return made;
}

async function client(made: RobotMcpApp): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await made.connect(serverSide);
  const sdk = new Client({ name: 'details', version: '1.0.0' });
  await sdk.connect(clientSide);
  return sdk;
}

/** Sends `initialize` with `protocolVersion` on a bare JSON-RPC peer and returns the result. */
async function initializeWith(made: RobotMcpApp, protocolVersion: string): Promise<Record<string, unknown>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const seen: JSONRPCMessage[] = [];
  clientSide.onmessage = (message) => seen.push(message);
  await made.connect(serverSide);
  await clientSide.start();
  await clientSide.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'old', version: '1' } },
  });
  const deadline = Date.now() + 5000;
  while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return (seen[0] as { result: Record<string, unknown> }).result;
}

describe.each(EXAMPLES)('the %s example on the wire', (_name, ServerClass, title) => {
  it('annotates every tool and has a short serverInfo.title beside its description', async () => {
    const sdk = await client(app(ServerClass));
    const { tools } = await sdk.listTools();
    for (const tool of tools) {
      expect({ tool: tool.name, readOnlyHint: typeof tool.annotations?.readOnlyHint }).toEqual({
        tool: tool.name,
        readOnlyHint: 'boolean',
      });
      expect(typeof tool.annotations?.openWorldHint).toBe('boolean');
    }
    const info = sdk.getServerVersion();
    expect(info?.title).toBe(title);
    expect(info?.description).toEqual(expect.any(String));
    expect(info?.title).not.toBe(info?.description);
  });
});

describe('protocol errors and capabilities', () => {
  it('error messages carry the MCP error prefix once, and echo caller input only as a short prefix', async () => {
    const made = app(SleeperServer);
    const sdk = await client(made);
    const longId = 'x'.repeat(100_000);
    const errors: string[] = [];
    for (const attempt of [
      () => sdk.experimental.tasks.getTask(longId),
      () => sdk.experimental.tasks.cancelTask(longId),
      () => sdk.request({ method: 'tasks/result', params: { taskId: longId } }, {} as never),
      () => sdk.subscribeResource({ uri: `tasks://${longId}` }),
      () => sdk.callTool({ name: longId }),
    ]) {
      try {
        await attempt();
        errors.push('accepted');
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    for (const message of errors) {
      expect(message).toMatch(/^MCP error -32602: /);
      expect(message.match(/MCP error/g)).toHaveLength(1);
      expect(message.length).toBeLessThan(500);
    }
  });

  it('advertises tasks only to clients that negotiated a protocol version with tasks', async () => {
    const made = app(SleeperServer);
    const latest = await initializeWith(made, '2025-11-25');
    expect(latest.protocolVersion).toBe('2025-11-25');
    expect((latest.capabilities as Record<string, unknown>).tasks).toBeDefined();
    const older = await initializeWith(made, '2025-06-18');
    expect(older.protocolVersion).toBe('2025-06-18');
    expect((older.capabilities as Record<string, unknown>).tasks).toBeUndefined();
    expect((older.capabilities as Record<string, unknown>).tools).toBeDefined();
  });
});

describe('unknown session ids over streamable HTTP', () => {
  it('are echoed only as a short prefix', async () => {
    const made = app(SleeperServer);
    const info = await made.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
    const longId = 's'.repeat(8_000);
    const response = await fetch(info.url!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': longId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    const body = await response.text();
    expect(body).toMatch(/not found/);
    expect(body.length).toBeLessThan(500);
  });
});
