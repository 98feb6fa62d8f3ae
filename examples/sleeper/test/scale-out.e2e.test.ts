import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from 'redis';
import { callJson, ChildServers, exitOf } from '../../../test/support/child-server.js';
import { WireClient } from '../../../test/support/mcp-2026.wire-client.js';
import { SignedReceiver } from '../../../test/support/signed-receiver.js';
import { waitFor } from '../../../test/support/until.js';

const SECRET = 'scale-out-test-secret-0123456789abcdef';
const REDIS_URL = 'redis://127.0.0.1:6379/0';
/** Short leases so that a lost replica is found in about a second (the waits below are safety nets). */
/** A lease a loaded CI machine's replica renews in time (under 1 s, a stall fences it: issue 27). */
const LEASE_MS = '3000';

const servers = new ChildServers(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js'));
const receiver = new SignedReceiver(SECRET);
const run = `rmk-test:${randomUUID()}:`;
let callbackUrl = '';

beforeAll(async () => {
  servers.assertBuilt();
  callbackUrl = await receiver.start();
});
afterEach(() => servers.cleanup());
afterAll(async () => {
  await receiver.close();
  const admin = createClient({ url: REDIS_URL });
  await admin.connect();
  for await (const keys of admin.scanIterator({ MATCH: `${run}*`, COUNT: 500 })) {
    if (keys.length > 0) await admin.del(keys);
  }
  await admin.close();
});

/** Two sleeper replicas on their own ports sharing one Redis (a key prefix of this test's own). */
async function twoReplicas() {
  const env = {
    RMK_STORE: REDIS_URL,
    RMK_STORE_LEASE_MS: LEASE_MS,
    RMK_STORE_PREFIX: `${run}${randomUUID()}:`,
    RVC_CALLBACK_URL: callbackUrl,
    RVC_EVENT_SECRET: SECRET,
  };
  const a = await servers.startHttp('streamable-http', env);
  const b = await servers.startHttp('streamable-http', env);
  return { a, b, clientA: await connect(a.url), clientB: await connect(b.url) };
}

async function connect(url: string): Promise<Client> {
  const client = servers.track(new Client({ name: 'scale-out-test', version: '1' }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function startSleep(client: Client, durationS: number): Promise<string> {
  const started = (await client.callTool({
    name: 'sleep_task',
    arguments: { duration_s: durationS },
  })) as CallToolResult;
  expect(started.isError).toBeFalsy();
  return (started.structuredContent as { task_id: string }).task_id;
}

describe('sleeper replicas sharing a Redis task store (RMK_STORE)', () => {
  it('reads, lists and cancels on B a task started on A; the work stops on A', async () => {
    const { clientA, clientB } = await twoReplicas();
    const taskId = await startSleep(clientA, 120);
    // durable start: the task is readable on B as soon as A answered
    const onB = await callJson(clientB, 'get_task', { task_id: taskId });
    expect(onB).toMatchObject({ task_id: taskId, state: 'running', tool: 'sleep_task', server: 'sleeper' });
    const resource = await clientB.readResource({ uri: `tasks://${taskId}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({
      task_id: taskId,
      state: 'running',
    });
    const running = await clientB.readResource({ uri: 'tasks://running' });
    const runningTasks = (
      JSON.parse((running.contents[0] as { text: string }).text) as {
        tasks: { task_id: string }[];
      }
    ).tasks;
    expect(runningTasks.map((t) => t.task_id)).toContain(taskId);
    const { resources } = await clientB.listResources();
    expect(resources.map((r) => r.uri)).toContain(`tasks://${taskId}`);
    const listed = (await callJson(clientB, 'list_tasks', { states: ['running'] })) as {
      tasks: { task_id: string }[];
    };
    expect(listed.tasks.map((t) => t.task_id)).toContain(taskId);

    const cancelled = await callJson(clientB, 'cancel_task', { task_id: taskId });
    expect(cancelled).toMatchObject({ task_id: taskId, state: 'cancelled' });
    // the owner's own TaskManager cancelled it
    expect((await callJson(clientA, 'get_task', { task_id: taskId })).state).toBe('cancelled');
    expect((await callJson(clientB, 'get_task', { task_id: taskId })).state).toBe('cancelled');
    expect((await callJson(clientB, 'get_task', { task_id: 'slee-nope' })).error).toBe('not_found');
  });

  it('a SEP-2663 task started on A is polled and cancelled through B (MCP 2026-07-28, no sessions)', async () => {
    const { a, b, clientA } = await twoReplicas();
    const onA = new WireClient(a.url, true);
    const onB = new WireClient(b.url, true);
    const created = await onA.result('tools/call', { name: 'sleep_task', arguments: { duration_s: 120 } });
    expect(created.resultType).toBe('task');
    const handle = created.taskId as string;
    const kitId = (created._meta as Record<string, string>)['robot-mcp-kit/task_id']!;
    // durable creation: the handle is readable on the other replica as soon as A answered
    expect(await onB.result('tasks/get', { taskId: handle })).toMatchObject({
      taskId: handle,
      status: 'working',
      _meta: { 'robot-mcp-kit/task_id': kitId },
    });
    expect((await onB.request('tasks/get', { taskId: randomUUID() })).error?.code).toBe(-32602);
    expect(await onB.result('tasks/cancel', { taskId: handle })).toMatchObject({ resultType: 'complete' });
    // the owner's TaskManager stopped the work; both replicas and both protocols agree
    await waitFor(
      `${kitId} to be cancelled on its owner`,
      async () => (await callJson(clientA, 'get_task', { task_id: kitId })).state === 'cancelled',
      30_000,
    );
    await waitFor(
      `tasks/get of ${handle} on B to say cancelled`,
      async () => (await onB.result('tasks/get', { taskId: handle })).status === 'cancelled',
      30_000,
    );
    expect((await onA.result('tasks/get', { taskId: handle })).status).toBe('cancelled');
  });

  it('marks the tasks of a killed replica failed with REPLICA_LOST and posts a signed task_failed', async () => {
    const { a, clientA, clientB } = await twoReplicas();
    const taskId = await startSleep(clientA, 120);
    const progressed = await waitFor(
      `a progress event of ${taskId}`,
      () => receiver.events.filter((e) => e.task_id === taskId && e.type === 'progress').at(-1),
      30_000,
    );
    a.child.kill('SIGKILL');
    await exitOf(a.child);
    const failed = await waitFor(
      `task ${taskId} to be failed by the survivor`,
      async () => {
        const task = await callJson(clientB, 'get_task', { task_id: taskId });
        return task.state === 'failed' ? task : undefined;
      },
      60_000,
    );
    expect(failed.failure).toMatchObject({ error_code: 'REPLICA_LOST' });
    const event = await waitFor(
      `the task_failed event of ${taskId}`,
      () => receiver.received.find((r) => r.event.task_id === taskId && r.event.type === 'task_failed'),
      30_000,
    );
    expect(event.verified).toBe(true);
    expect(event.event.payload).toMatchObject({ error_code: 'REPLICA_LOST' });
    expect(event.event.seq).toBeGreaterThan(progressed.seq);
    // At-least-once: an event A delivered but had not yet removed from its outbox when it died is
    // delivered again by B, with the same event_id. What must never happen is two events on one seq.
    const events = receiver.events.filter((e) => e.task_id === taskId);
    for (const seq of new Set(events.map((e) => e.seq))) {
      const ids = new Set(events.filter((e) => e.seq === seq).map((e) => e.event_id));
      expect({ seq, events: ids.size }).toEqual({ seq, events: 1 });
    }
    expect(receiver.events.filter((e) => e.task_id === taskId && e.type === 'task_failed')).toHaveLength(1);
    void clientA;
  });

  it('kill -9 of the owner during a receiver outage loses no event once the receiver is back', async () => {
    receiver.down = true;
    try {
      const { a, clientA, clientB } = await twoReplicas();
      const taskId = await startSleep(clientA, 120);
      // A reports progress every second; its POSTs are refused (each task's events wait behind its
      // first, retried on the schedule), so they wait in its outbox. B reads the progress from Redis.
      await waitFor(
        `four progress reports of ${taskId}, read on B`,
        async () => {
          const task = await callJson(clientB, 'get_task', { task_id: taskId });
          return ((task.progress as { eta_s?: number } | null)?.eta_s ?? 120) <= 116;
        },
        30_000,
      );
      expect(receiver.refused.some((e) => e.task_id === taskId)).toBe(true);
      a.child.kill('SIGKILL');
      await exitOf(a.child);
      // A died with its refused events in its outbox. The receiver comes back now, before B takes
      // them over (one lease later) and posts them afresh: B's first posts are then accepted, and
      // nothing here waits on a poster's retry backoff (up to 30 s between attempts).
      receiver.down = false;
      await waitFor(
        `task ${taskId} to be failed by the survivor`,
        async () => (await callJson(clientB, 'get_task', { task_id: taskId })).state === 'failed',
        60_000,
      );
      // B took over A's undelivered events (same event_id) and adds its task_failed after them.
      const failed = await waitFor(
        `the task_failed event of ${taskId}`,
        () => receiver.events.find((e) => e.task_id === taskId && e.type === 'task_failed'),
        90_000,
      );
      const expected = Array.from({ length: failed.seq }, (_, i) => i + 1);
      await waitFor(
        `every seq of ${taskId} up to ${failed.seq}`,
        () => expected.every((seq) => receiver.events.some((e) => e.task_id === taskId && e.seq === seq)),
        90_000,
      );
      const delivered = receiver.received.filter((r) => r.event.task_id === taskId);
      expect(delivered.every((r) => r.verified)).toBe(true);
      // one event per seq: a duplicate delivery is the same event (same event_id), never another one
      for (const seq of expected) {
        const ids = new Set(delivered.filter((r) => r.event.seq === seq).map((r) => r.event.event_id));
        expect({ seq, events: ids.size }).toEqual({ seq, events: 1 });
      }
      // everything A tried to post before it died arrived, with the same event_id
      for (const tried of receiver.refused.filter((e) => e.task_id === taskId)) {
        expect(delivered.some((r) => r.event.event_id === tried.event_id)).toBe(true);
      }
      void clientA;
    } finally {
      receiver.down = false;
    }
  });

  it('fails fast at start-up when RMK_STORE names an unreachable Redis', async () => {
    const { child, stderr } = servers.spawn(
      { MCP_TRANSPORT: 'streamable-http', MCP_PORT: '0', RMK_STORE: 'redis://127.0.0.1:1/0' },
      'ignore',
    );
    expect(await exitOf(child)).not.toBe(0);
    expect(stderr()).toContain('redis://127.0.0.1:1/0');
    expect(stderr()).toContain('RMK_STORE');
  });
});
