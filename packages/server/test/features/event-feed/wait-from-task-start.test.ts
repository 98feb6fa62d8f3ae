import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { eventFeedOf } from '@robot-mcp-kit/server/advanced';
import { connectTestClient, textOf } from '@robot-mcp-kit/server/testing';
import { until } from '../../fixtures/harness.js';
import { RoverServer } from '../../fixtures/rover.server.js';
import { WireClient } from '../../../../../test/support/mcp-2026.wire-client.js';

type Json = Record<string, unknown>;
type CallJson = (name: string, args: Json) => Promise<Json>;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const OPTIONS = () => ({ env: {}, logger: new MemoryLogger(), eventTransport: new InMemoryEventTransport() });

async function listening(): Promise<{ app: RobotMcpApp; url: string }> {
  const app = bootstrap(RoverServer, OPTIONS());
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return { app, url: info.url! };
}

/** Each client calls a tool and parses the JSON text of its answer. */
const CLIENTS: Record<string, () => Promise<{ app: RobotMcpApp; call: CallJson }>> = {
  'MCP 2026-07-28 over HTTP (each request a session of its own)': async () => {
    const { app, url } = await listening();
    const wire = new WireClient(url, false);
    const call: CallJson = async (name, args) => {
      const result = await wire.result('tools/call', { name, arguments: args });
      return JSON.parse(textOf(result as unknown as CallToolResult)) as Json;
    };
    return { app, call };
  },
  'MCP 2025-11-25 over streamable HTTP (one session)': async () => {
    const { app, url } = await listening();
    const client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => client.close());
    const call: CallJson = async (name, args) =>
      JSON.parse(textOf((await client.callTool({ name, arguments: args })) as CallToolResult)) as Json;
    return { app, call };
  },
  'MCP 2025-11-25 over one in-memory session (as stdio)': async () => {
    const t = await connectTestClient(RoverServer, OPTIONS());
    cleanups.push(() => t.close());
    return { app: t.app, call: (name, args) => t.json(name, args) };
  },
};

describe.each(Object.keys(CLIENTS))('wait_for_event {task_id} without since, %s', (name) => {
  it("starts at the task's first entry: a trigger that fired while the agent was busy is found", async () => {
    const { app, call } = await CLIENTS[name]!();
    const rover = app.instance as RoverServer;
    const feed = eventFeedOf(app)!;
    const started = await call('drive', {
      distance_m: 1,
      triggers: [{ type: 'battery_below', percent: 85 }],
    });
    const taskId = started.task_id as string;
    expect(started.feed_cursor).toBe(0);
    // a first wait (it may use up a session's start cursor), then the trigger fires before the next
    await until(() => rover.gates.length > 0, 'the first drive step');
    rover.gates.shift()!();
    expect(await call('wait_for_event', { task_id: taskId, type: 'progress', timeout_s: 5 })).toMatchObject({
      timeout: false,
      entry: { kind: 'event', event: { type: 'progress', payload: { battery: 90 } } },
    });
    await until(() => rover.gates.length > 0, 'the second drive step');
    rover.gates.shift()!();
    await until(
      () => feed.read(0, 100).entries.some((e) => e.kind === 'event' && e.event.type === 'trigger_fired'),
      'the trigger to fire',
    );
    const found = await call('wait_for_event', { task_id: taskId, type: 'battery_below', timeout_s: 1 });
    expect(found).toMatchObject({
      timeout: false,
      entry: { kind: 'event', event: { task_id: taskId, type: 'trigger_fired', payload: { battery: 80 } } },
    });
    // the TaskInfo of get_task carries the same cursor, to pass as since
    const info = await call('get_task', { task_id: taskId });
    expect(info).toMatchObject({ task_id: taskId, state: 'running', feed_cursor: 0 });
    const since = await call('wait_for_event', {
      type: 'battery_below',
      since: info.feed_cursor,
      timeout_s: 1,
    });
    expect(since).toMatchObject({ entry: { cursor: (found.entry as Json).cursor } });
  });
});
