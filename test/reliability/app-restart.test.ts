import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TaskEvent, type TaskInfo } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import {
  createEventReceiver,
  type EventReceiver,
  Reconciler,
  type SeqGap,
  SERVER_RESTARTED,
} from '@robot-mcp-kit/receiver';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { SleeperServer } from '../../examples/sleeper/src/sleeper.server.js';
import { driveTo, figure, TrackedTransport } from './helpers/drive.js';
import { rejectionRecorder, SECRET, T0 } from './helpers/rig.js';

// The chat app restarts (or is unreachable) mid-task: it misses events — some for good, past the
// retry cap — then sees seq gaps, reconciles over MCP (get_task, list_tasks) and its view of the
// tasks matches the capability server's truth again.
const MIN = 60_000;
// The first test drives 26 fake minutes of five tasks through real loopback HTTP (thousands of
// signed round trips): CPU-bound, never waiting on real time, so on a loaded machine it is only
// slower. Its limit is a safety net against a hang, not a timing assertion.
const CPU_BOUND_LIMIT_MS = 5 * MIN;
const rejections = rejectionRecorder();
beforeAll(() => rejections.install());
afterAll(() => rejections.remove());

/** What the app believes about one task (its database row). */
interface ViewRow {
  state: TaskInfo['state'];
  error_code?: string;
  lastSeq: number;
}

/**
 * The chat app: a persistent view of the tasks (it survives restarts, like a database) and a
 * volatile EventReceiver on a fixed port (a restart loses its dedupe and seq memory).
 */
class ChatApp {
  readonly view = new Map<string, ViewRow>();
  readonly gaps: SeqGap[] = [];
  receiver: EventReceiver | undefined;
  reconciliations = 0;
  private http: Server | undefined;
  private reconciling: Promise<void> | undefined;

  constructor(
    readonly port: number,
    private readonly clock: ManualClock,
    private readonly reconciler: () => Reconciler,
  ) {}

  async start(): Promise<void> {
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      clock: this.clock,
      onEvent: (event) => this.apply(event),
      onGap: (gap) => {
        this.gaps.push(gap);
        this.reconcile();
      },
    });
    this.receiver = receiver;
    this.http = createServer(receiver.handler);
    await new Promise<void>((resolve) => this.http!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    this.receiver = undefined;
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  /** Poll is the truth: ask the server about every task not known to be over, and what runs. */
  reconcile(): void {
    this.reconciling ??= (async () => {
      const tracked = [...this.view]
        .filter(([, row]) => row.state === 'running')
        .map(([task_id]) => ({ server: 'sleeper', task_id }));
      const report = await this.reconciler().reconcile({
        tracked: [...tracked, ...(this.receiver?.openTasks() ?? [])],
      });
      expect(report.errors).toEqual([]);
      for (const info of [...report.tasks.values(), ...report.running]) this.setFromInfo(info);
      this.reconciliations += 1;
    })().finally(() => {
      this.reconciling = undefined;
    });
  }

  async settled(): Promise<void> {
    while (this.reconciling) await this.reconciling;
  }

  private apply(event: TaskEvent): void {
    const row = this.view.get(event.task_id) ?? { state: 'running', lastSeq: 0 };
    row.lastSeq = Math.max(row.lastSeq, event.seq);
    if (row.state === 'running' && event.type === 'task_done') row.state = 'succeeded';
    if (row.state === 'running' && event.type === 'task_failed') {
      row.state = 'failed';
      row.error_code = String(event.payload.error_code);
    }
    this.view.set(event.task_id, row);
  }

  private setFromInfo(info: TaskInfo): void {
    const row = this.view.get(info.task_id) ?? { state: info.state, lastSeq: 0 };
    row.state = info.state;
    if (info.failure) row.error_code = info.failure.error_code;
    this.view.set(info.task_id, row);
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface ServerSide {
  app: RobotMcpApp;
  client: Client;
  transport: TrackedTransport;
  logger: MemoryLogger;
  start(args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

async function startServer(port: number, clock: ManualClock): Promise<ServerSide> {
  const logger = new MemoryLogger();
  const transport = new TrackedTransport(
    new HttpEventTransport({
      url: `http://127.0.0.1:${port}/api/agent/events`,
      secret: SECRET,
      serverName: 'sleeper',
      clock,
      timeoutMs: 2000,
    }),
  );
  const app = bootstrap(SleeperServer, { eventTransport: transport, clock, env: {}, logger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: 'chat-app', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    app,
    client,
    transport,
    logger,
    async start(args) {
      const result = (await client.callTool({ name: 'sleep_task', arguments: args })) as CallToolResult;
      return (result.structuredContent as { task_id: string }).task_id;
    },
    async close() {
      await client.close();
      await app.taskManager.aclose({ flush: false });
      await app.poster.aclose({ timeoutMs: 0 });
      await app.close({ timeoutMs: 0 });
    },
  };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  expect(rejections.seen).toEqual([]);
});

describe('the app restarts mid-task', () => {
  it(
    'detects the seq gaps and reconciles its view back to the server truth',
    async () => {
      const clock = new ManualClock(T0);
      const port = await freePort();
      const holder: { server?: ServerSide } = {};
      const chat = new ChatApp(
        port,
        clock,
        () => new Reconciler({ servers: { sleeper: holder.server!.client }, clock }),
      );
      await chat.start();
      const server = await startServer(port, clock);
      holder.server = server;
      cleanup.push(
        () => chat.stop(),
        () => server.close(),
      );
      const { transport } = server;

      const short = await server.start({ duration_s: 30 });
      const failing = await server.start({ duration_s: 60, fail: true });
      const cancelled = await server.start({ duration_s: 600 });
      const long = await server.start({ duration_s: 25 * 60 });
      const longer = await server.start({ duration_s: 40 * 60 });
      await driveTo(clock, transport, T0 + 10_000);
      await chat.settled();
      expect([...chat.view.values()].map((r) => r.state)).toEqual(Array(5).fill('running'));

      // The app goes away for 16 minutes: the first events it misses are past the retry cap when
      // it is back, and a cancel (which sends no event at all) happens meanwhile.
      await chat.stop();
      await driveTo(clock, transport, T0 + 2 * MIN);
      const cancelledAnswer = await server.client.callTool({
        name: 'cancel_task',
        arguments: { task_id: cancelled },
      });
      expect((cancelledAnswer as CallToolResult).isError).toBeFalsy();
      await driveTo(clock, transport, T0 + 16 * MIN + 250);
      const truth = () => new Map(server.app.taskManager.list().map((t) => [t.task_id, t]));
      expect(truth().get(short)!.state).toBe('succeeded');
      expect(truth().get(failing)!.state).toBe('failed');
      // Before the restart the app's view is stale: it believes everything still runs.
      expect([...chat.view.values()].every((r) => r.state === 'running')).toBe(true);
      expect(server.app.poster.stats.dropped).toBeGreaterThan(0);

      // The app restarts with a fresh receiver: the next events of the long tasks show gaps.
      await chat.start();
      await driveTo(clock, transport, T0 + 17 * MIN);
      await chat.settled();
      const gapped = new Set(chat.gaps.map((g) => g.task_id));
      expect(gapped).toEqual(new Set([long, longer]));
      expect(chat.gaps.every((g) => g.expected === 1 && g.got > 1)).toBe(true);
      expect(chat.reconciliations).toBeGreaterThanOrEqual(1);

      // Reconciliation brought the view back to the truth, for every task the server knows.
      const now = truth();
      for (const [id, info] of now) {
        const row = chat.view.get(id);
        expect({ id, state: row?.state, code: row?.error_code }).toEqual({
          id,
          state: info.state,
          code: info.failure?.error_code,
        });
      }
      expect(chat.view.get(failing)).toMatchObject({ state: 'failed', error_code: 'FAKE_FAILURE' });
      expect(chat.view.get(cancelled)!.state).toBe('cancelled');
      figure('app restart', {
        events_dropped_while_down: server.app.poster.stats.dropped,
        gaps: chat.gaps.length,
        reconciliations: chat.reconciliations,
        tasks_matching_truth: now.size,
      });

      // And events keep it true from there: the long task ends, the app hears it.
      await driveTo(clock, transport, T0 + 26 * MIN);
      expect(server.app.taskManager.get(long)!.state).toBe('succeeded');
      expect(chat.view.get(long)!.state).toBe('succeeded');
      expect(chat.view.get(longer)!.state).toBe('running');
    },
    CPU_BOUND_LIMIT_MS,
  );

  it('the server restarts instead: tasks it lost are reported SERVER_RESTARTED', async () => {
    const clock = new ManualClock(T0);
    const port = await freePort();
    let server: ServerSide | undefined;
    const chat = new ChatApp(
      port,
      clock,
      () => new Reconciler({ servers: { sleeper: server!.client }, clock }),
    );
    await chat.start();
    server = await startServer(port, clock);
    const first = server;
    const lost = [await server.start({ duration_s: 600 }), await server.start({ duration_s: 900 })];
    await driveTo(clock, server.transport, T0 + 5_000);
    await chat.settled();
    expect(lost.map((id) => chat.view.get(id)?.state)).toEqual(['running', 'running']);

    // The capability server restarts: its task state is gone (by design, spec §4.2).
    await first.close();
    server = await startServer(port, clock);
    cleanup.push(
      () => chat.stop(),
      () => server!.close(),
    );
    const fresh = await server.start({ duration_s: 20 });
    await driveTo(clock, server.transport, T0 + 10_000);
    chat.reconcile();
    await chat.settled();
    for (const id of lost)
      expect(chat.view.get(id)).toMatchObject({ state: 'failed', error_code: SERVER_RESTARTED });
    expect(chat.view.get(fresh)!.state).toBe('running');
    await driveTo(clock, server.transport, T0 + 40_000);
    expect(chat.view.get(fresh)!.state).toBe('succeeded');
  });
});
