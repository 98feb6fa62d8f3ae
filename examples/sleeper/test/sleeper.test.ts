import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ManualClock } from '@robot-mcp-kit/server/testing';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { SleeperServer } from '../src/sleeper.server.js';
import { SignedReceiver } from '../../../test/support/signed-receiver.js';
import { until, waitFor } from '../../../test/support/until.js';

const receiver = new SignedReceiver('sleeper-test-secret-0123456789abc');
let app: RobotMcpApp | undefined;
let client: Client | undefined;
let fakeTime = false;

afterEach(async () => {
  await client?.close();
  await app?.close({ timeoutMs: fakeTime ? 0 : 2000 });
  fakeTime = false;
  await receiver.close();
  receiver.received.length = 0;
  app = client = undefined;
});

async function connectSleeper(callbackUrl: string, clock?: ManualClock): Promise<void> {
  app = bootstrap(SleeperServer, {
    env: { RVC_CALLBACK_URL: callbackUrl, RVC_EVENT_SECRET: receiver.secret, LOG_LEVEL: 'error' },
    clock,
  });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await app.connect(s);
  client = new Client({ name: 'test', version: '1' });
  await client.connect(c);
}

describe('sleeper (spec §5) over the in-memory client, events to a real HTTP receiver', () => {
  it('lists sleep_task with its schema and the reconciliation tools', async () => {
    await connectSleeper(await receiver.start());
    const { tools } = await client!.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'cancel_task',
      'get_events',
      'get_task',
      'list_tasks',
      'sleep_task',
      'wait_for_event',
    ]);
    const schema = tools.find((t) => t.name === 'sleep_task')!.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(schema.required).toEqual(['duration_s']);
    expect(schema.properties.duration_s).toMatchObject({ type: 'number', exclusiveMinimum: 0 });
    expect(schema.properties.fail).toMatchObject({ type: 'boolean' });
    expect(schema.properties.triggers).toMatchObject({ type: 'array' });
  });

  it('pushes signed progress, trigger and done events in order', async () => {
    await connectSleeper(await receiver.start());
    const { received } = receiver;
    const result = (await client!.callTool({
      name: 'sleep_task',
      arguments: {
        duration_s: 2.5,
        triggers: [
          { type: 'eta_below', seconds: 1 },
          { type: 'progress_above', percent: 50 },
        ],
      },
    })) as CallToolResult;
    const info = result.structuredContent as { task_id: string; state: string; est_duration_s: number };
    expect(info).toMatchObject({ state: 'running', est_duration_s: 2.5 });
    expect(info.task_id).toMatch(/^slee-[0-9a-f]{6}$/);
    await waitFor(() => received.some((r) => r.event.type === 'task_done'));
    expect(received.every((r) => r.verified)).toBe(true);
    expect(received.every((r) => r.headers['x-rvc-server'] === 'sleeper')).toBe(true);
    expect(received.every((r) => r.headers['content-type'] === 'application/json')).toBe(true);
    const summary = received.map((r) => [r.event.seq, r.event.type, r.event.payload]);
    expect(summary).toEqual([
      [1, 'progress', { eta_s: 1.5, percent: 40 }],
      [2, 'progress', { eta_s: 0.5, percent: 80 }],
      [3, 'trigger_fired', { trigger: { type: 'eta_below', seconds: 1 }, eta_s: 0.5 }],
      [4, 'trigger_fired', { trigger: { type: 'progress_above', percent: 50 }, percent: 80 }],
      [5, 'progress', { eta_s: 0, percent: 100 }],
      [6, 'task_done', { result: { slept_s: 2.5 } }],
    ]);
  });

  it('fails with FAKE_FAILURE and its suggestion', async () => {
    await connectSleeper(await receiver.start());
    const { received } = receiver;
    await client!.callTool({ name: 'sleep_task', arguments: { duration_s: 0.2, fail: true } });
    await waitFor(() => received.some((r) => r.event.type === 'task_failed'));
    expect(received.at(-1)!.event.payload).toEqual({
      error_code: 'FAKE_FAILURE',
      message: 'The sleeper was asked to fail.',
      recoverable: true,
      suggestions: ['retry_without_fail'],
    });
  });

  it('cancel stops the work: no more progress and no terminal event', async () => {
    // On a fake clock: the test moves time past several of the body's 1 s steps after the cancel,
    // and compares what the server posted with what the receiver got — no fixed real-time wait.
    const clock = new ManualClock(Date.now()); // near real time: the receiver checks the signed timestamp
    fakeTime = true;
    await connectSleeper(await receiver.start(), clock);
    const posted: TaskEvent[] = [];
    app!.taskManager.onChange((change) => {
      if (change.event) posted.push(change.event);
    });
    const { received } = receiver;
    const result = (await client!.callTool({
      name: 'sleep_task',
      arguments: { duration_s: 30 },
    })) as CallToolResult;
    const taskId = (result.structuredContent as { task_id: string }).task_id;
    await until(() => clock.nextDue() !== undefined, 'the body to sleep');
    await clock.advance(1000);
    await waitFor(() => received.length >= 1);
    const cancel = (await client!.callTool({
      name: 'cancel_task',
      arguments: { task_id: taskId },
    })) as CallToolResult;
    expect(JSON.parse((cancel.content[0] as { text: string }).text)).toEqual({
      task_id: taskId,
      state: 'cancelled',
    });
    const postedBefore = posted.length;
    for (let step = 0; step < 5; step += 1) await clock.advance(1000);
    await until(
      () => app!.poster.stats.queueDepth === 0 && received.length === posted.length,
      'every posted event to reach the receiver',
    );
    expect(posted.slice(postedBefore)).toEqual([]);
    expect(received.map((r) => r.event.event_id)).toEqual(posted.map((e) => e.event_id));
    expect(received.some((r) => r.event.type === 'task_done' || r.event.type === 'task_failed')).toBe(false);
  });

  it('rejects a non-positive duration with a tool error and keeps serving', async () => {
    await connectSleeper(await receiver.start());
    const bad = (await client!.callTool({
      name: 'sleep_task',
      arguments: { duration_s: 0 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toContain('duration_s must be a positive number');
    const ok = (await client!.callTool({ name: 'list_tasks', arguments: {} })) as CallToolResult;
    expect(JSON.parse((ok.content[0] as { text: string }).text)).toEqual({ tasks: [] });
  });
});
