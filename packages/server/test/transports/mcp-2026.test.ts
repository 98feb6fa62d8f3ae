import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { textOf } from '@robot-mcp-kit/server/testing';
import { until } from '../fixtures/harness.js';
import { RoverServer } from '../fixtures/rover.server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** The rover served the way runServer serves it: app.listen() on streamable HTTP, port 0. */
async function serve(): Promise<{ app: RobotMcpApp; url: string }> {
  const app = bootstrap(RoverServer, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return { app, url: info.url! };
}

/** A v2 SDK client pinned to MCP 2026-07-28 (server/discover, no initialize, no session). */
async function modernClient(url: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'modern', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

/** A v1 SDK client (2025-11-25: initialize, Mcp-Session-Id). */
async function legacyClient(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'legacy', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

function modernText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.type === 'text' ? (content[0].text ?? '') : '';
}

describe('MCP 2026-07-28 beside 2025-11-25 on one streamable-HTTP listener', () => {
  it('serves server/discover and the same tool list as the 2025 sessions', async () => {
    const { url } = await serve();
    const modern = await modernClient(url);
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const discovered = modern.getDiscoverResult()!;
    expect(discovered.supportedVersions).toContain('2026-07-28');
    expect(discovered.capabilities.tools).toBeDefined();
    expect(modern.getServerVersion()).toMatchObject({ name: 'rover', version: '1.2.3' });

    const { client: legacy } = await legacyClient(url);
    const legacyTools = (await legacy.listTools()).tools;
    const modernTools = (await modern.listTools()).tools;
    expect(modernTools.map((t) => t.name)).toEqual(legacyTools.map((t) => t.name));
    expect(modernTools.map((t) => t.name)).toEqual(expect.arrayContaining(['drive', 'echo', 'get_task']));
    for (const tool of modernTools) {
      const twin = legacyTools.find((t) => t.name === tool.name)!;
      expect(tool.inputSchema).toEqual(twin.inputSchema);
      expect(tool.annotations).toEqual(twin.annotations);
      expect(tool.description).toEqual(twin.description);
    }
  });

  it('calls a plain tool, with the same validation errors as the 2025 leg', async () => {
    const { url } = await serve();
    const modern = await modernClient(url);
    const echo = await modern.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(JSON.parse(modernText(echo))).toEqual({ text: 'hi', session: true });

    const { client: legacy } = await legacyClient(url);
    const bad = await modern.callTool({ name: 'echo', arguments: { text: 7 } });
    const legacyBad = (await legacy.callTool({ name: 'echo', arguments: { text: 7 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(modernText(bad)).toContain('text');
    expect(modernText(bad)).toEqual(textOf(legacyBad));

    await expect(modern.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Tool no_such_tool not found; available: .*echo/,
    );
  });

  it('starts a long-running tool (plain task_id result) and polls it with get_task to done', async () => {
    const { app, url } = await serve();
    const modern = await modernClient(url);
    const started = await modern.callTool({ name: 'drive', arguments: { distance_m: 2 } });
    const info = JSON.parse(modernText(started)) as { task_id: string; state: string; tool: string };
    expect(info).toMatchObject({ tool: 'drive', state: 'running' });
    expect(info.task_id).toMatch(/^rove-[0-9a-f]{6}$/);
    expect(app.taskManager.get(info.task_id)?.state).toBe('running');

    const rover = app.instance as RoverServer;
    for (let step = 0; step < 4; step += 1) {
      await until(() => rover.gates.length > 0, 20_000);
      rover.gates.shift()?.();
    }
    let last: Record<string, unknown> = {};
    await until(async () => {
      const polled = await modern.callTool({ name: 'get_task', arguments: { task_id: info.task_id } });
      last = JSON.parse(modernText(polled)) as Record<string, unknown>;
      return last.state === 'succeeded';
    }, 20_000);
    expect(last).toMatchObject({ task_id: info.task_id, state: 'succeeded', result: { driven_m: 2 } });

    // The same task, seen by a 2025-11-25 session on the same listener.
    const { client: legacy } = await legacyClient(url);
    const seen = (await legacy.callTool({
      name: 'get_task',
      arguments: { task_id: info.task_id },
    })) as CallToolResult;
    expect(JSON.parse(textOf(seen))).toEqual(last);
  });

  it('keeps 2025-11-25 clients on sessions (initialize, Mcp-Session-Id) on the same listener', async () => {
    const { app, url } = await serve();
    await modernClient(url);
    const { client, transport } = await legacyClient(url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'rover', version: '1.2.3' });
    expect(app.sessionCount).toBe(1);
    const echo = (await client.callTool({ name: 'echo', arguments: { text: 'old' } })) as CallToolResult;
    expect(JSON.parse(textOf(echo))).toEqual({ text: 'old', session: true });
  });

  it('answers a request with an unsupported envelope version from the 2026 leg, not with "initialize first"', async () => {
    const { url } = await serve();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2099-01-01',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const text = await response.text();
    expect(text).not.toContain('initialize first');
    expect(text).toMatch(/2026-07-28/);
  });
});
