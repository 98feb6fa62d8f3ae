import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const NAVIGATION = resolve(root, 'examples/navigation/dist/main.js');
const SLEEPER = resolve(root, 'examples/sleeper/dist/main.js');

/** The navigation example when it is built, else the sleeper (both need `npm run build`). */
const scenario: {
  main: string;
  env: Record<string, string>;
  start: { name: string; arguments: Record<string, unknown> };
  waitFor: string;
} = existsSync(NAVIGATION)
  ? {
      main: NAVIGATION,
      env: { NAV_SPEED_MPS: '10', NAV_TICK_MS: '50' },
      start: {
        name: 'navigate_to',
        arguments: { goal: 'kitchen', triggers: [{ type: 'zone_entered', zone: 'corridor' }] },
      },
      waitFor: 'zone_entered',
    }
  : {
      main: SLEEPER,
      env: {},
      start: {
        name: 'sleep_task',
        arguments: { duration_s: 60, triggers: [{ type: 'progress_above', percent: 1 }] },
      },
      waitFor: 'progress_above',
    };

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

const json = (result: unknown): Record<string, unknown> =>
  JSON.parse(((result as CallToolResult).content[0] as { text: string }).text) as Record<string, unknown>;

describe('an agent over stdio with no callback URL', () => {
  it('starts a task, waits for its trigger with wait_for_event, and cancels it', async () => {
    if (!existsSync(scenario.main)) throw new Error(`${scenario.main} is missing: run "npm run build" first`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [scenario.main],
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...scenario.env },
      stderr: 'pipe',
    });
    client = new Client({ name: 'agent', version: '1' });
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['get_events', 'wait_for_event', 'cancel_task', scenario.start.name]),
    );

    const started = (await client.callTool(scenario.start)) as CallToolResult;
    expect(started.isError).toBeFalsy();
    const taskId = (started.structuredContent as { task_id: string }).task_id;
    const waited = json(
      await client.callTool({ name: 'wait_for_event', arguments: { type: scenario.waitFor, timeout_s: 20 } }),
    );
    expect(waited).toMatchObject({
      timeout: false,
      entry: {
        kind: 'event',
        event: { task_id: taskId, type: 'trigger_fired', payload: { trigger: { type: scenario.waitFor } } },
      },
    });
    expect(json(await client.callTool({ name: 'cancel_task', arguments: { task_id: taskId } }))).toEqual({
      task_id: taskId,
      state: 'cancelled',
    });
    const after = json(
      await client.callTool({ name: 'get_events', arguments: { since: waited.cursor as number } }),
    );
    expect(after.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'cancelled', task_id: taskId })]),
    );
  });
});
