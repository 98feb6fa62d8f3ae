import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { until } from '../fixtures/harness.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const SLEEPER = resolve(root, 'examples/sleeper/dist/main.js');
const ENV = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', MCP_TRANSPORT: 'stdio' };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}

describe('stdio: the first line decides the protocol generation (built sleeper)', () => {
  it('serves a 2026-07-28 client (server/discover, tools, get_task to done) through the v2 SDK', async () => {
    const client = new ModernClient(
      { name: 'modern-stdio', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernStdioTransport({ command: process.execPath, args: [SLEEPER], env: ENV }));
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'sleeper' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['sleep_task', 'get_task', 'cancel_task']),
    );
    const started = await client.callTool({ name: 'sleep_task', arguments: { duration_s: 0.2 } });
    const info = JSON.parse(textOf(started)) as { task_id: string; state: string };
    expect(info.state).toBe('running');
    let last: Record<string, unknown> = {};
    await until(async () => {
      last = JSON.parse(
        textOf(await client.callTool({ name: 'get_task', arguments: { task_id: info.task_id } })),
      );
      return last.state === 'succeeded';
    }, 30_000);
    expect(last).toMatchObject({ result: { slept_s: 0.2 } });
  }, 60_000);

  it('keeps a 2025-11-25 client (initialize) on the v1 session', async () => {
    const client = new Client({ name: 'legacy-stdio', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SLEEPER], env: ENV }));
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toMatchObject({ name: 'sleeper' });
    const started = (await client.callTool({
      name: 'sleep_task',
      arguments: { duration_s: 0.1 },
    })) as CallToolResult;
    expect(JSON.parse(textOf(started))).toMatchObject({ state: 'running' });
    // SEP-1686 is still offered on the 2025 session.
    expect(client.getServerCapabilities()?.tasks).toBeDefined();
  }, 60_000);
});

describe("stdio: wait_for_event {task_id} without since starts at the task's first entry (built sleeper)", () => {
  type CallJson = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

  async function modern(): Promise<CallJson> {
    const client = new ModernClient(
      { name: 'modern-wait', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernStdioTransport({ command: process.execPath, args: [SLEEPER], env: ENV }));
    cleanups.push(() => client.close());
    return async (name, args) => JSON.parse(textOf(await client.callTool({ name, arguments: args })));
  }

  async function legacy(): Promise<CallJson> {
    const client = new Client({ name: 'legacy-wait', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SLEEPER], env: ENV }));
    cleanups.push(() => client.close());
    return async (name, args) => JSON.parse(textOf(await client.callTool({ name, arguments: args })));
  }

  it.each([
    ['2026-07-28', modern],
    ['2025-11-25', legacy],
  ])(
    '%s: a trigger that fired before the wait is found',
    async (_era, connect) => {
      const call = await connect();
      const started = await call('sleep_task', {
        duration_s: 1.5,
        triggers: [{ type: 'progress_above', percent: 1 }],
      });
      const taskId = started.task_id as string;
      expect(typeof started.feed_cursor).toBe('number');
      // a first wait (on 2025 it may use up the session's start cursor), then the task ends
      expect(
        await call('wait_for_event', { task_id: taskId, type: 'progress', timeout_s: 10 }),
      ).toMatchObject({
        timeout: false,
      });
      await until(async () => (await call('get_task', { task_id: taskId })).state === 'succeeded', 30_000);
      expect(
        await call('wait_for_event', { task_id: taskId, type: 'progress_above', timeout_s: 1 }),
      ).toMatchObject({
        timeout: false,
        entry: { kind: 'event', event: { task_id: taskId, type: 'trigger_fired' } },
      });
    },
    60_000,
  );
});
