import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { ConfigError, TaskFailure, TaskInfo, type TaskState } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import {
  Reconciler,
  SERVER_RESTARTED,
  type SeqGap,
  type TrackedTask,
  createEventReceiver,
} from '@robot-mcp-kit/receiver';
import { SECRETS, listen, makeEvent, postEvent, waitFor } from '../receiver-test.helpers.js';

type ToolAnswer = { content: { type: 'text'; text: string }[]; isError?: boolean };
type Behaviour = 'ok' | 'tool_error' | 'throw' | 'garbage' | 'bad_info' | 'hang' | 'odd_error';

/** A tiny capability server built with the official SDK: list_tasks / get_task over its tasks (spec §3.3). */
class FakeCapabilityServer {
  readonly tasks = new Map<string, TaskInfo>();
  behaviour: Behaviour = 'ok';
  readonly calls: { name: string; args: unknown }[] = [];
  client!: Client;

  constructor(readonly name: string) {}

  add(
    taskId: string,
    state: TaskState,
    extra: Partial<Parameters<typeof TaskInfo.create>[0]> = {},
  ): TaskInfo {
    const info = TaskInfo.create({
      task_id: taskId,
      server: this.name,
      tool: 'sleep_task',
      state,
      created_at: new Date('2026-01-01T00:00:00Z'),
      updated_at: new Date('2026-01-01T00:01:00Z'),
      ...extra,
    });
    this.tasks.set(taskId, info);
    return info;
  }

  async connect(): Promise<Client> {
    const mcp = new McpServer({ name: this.name, version: '0.0.0' });
    mcp.registerTool(
      'list_tasks',
      { description: 'List tasks', inputSchema: { states: z.array(z.string()).nullable().optional() } },
      async ({ states }) => {
        this.calls.push({ name: 'list_tasks', args: { states } });
        const tasks = [...this.tasks.values()].filter((t) => !states || states.includes(t.state));
        return this.answer({ tasks });
      },
    );
    mcp.registerTool(
      'get_task',
      { description: 'Get a task', inputSchema: { task_id: z.string() } },
      async ({ task_id }) => {
        this.calls.push({ name: 'get_task', args: { task_id } });
        return this.answer(this.tasks.get(task_id) ?? { error: 'not_found' });
      },
    );
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverTransport);
    this.client = new Client({ name: 'chat-app', version: '0.0.0' });
    await this.client.connect(clientTransport);
    return this.client;
  }

  private async answer(value: unknown): Promise<ToolAnswer> {
    switch (this.behaviour) {
      case 'tool_error':
        return { content: [{ type: 'text', text: 'database locked' }], isError: true };
      case 'throw':
        throw new Error('kaboom');
      case 'garbage':
        return { content: [{ type: 'text', text: 'not json at all' }] };
      case 'bad_info':
        return {
          content: [{ type: 'text', text: JSON.stringify({ tasks: [{ task_id: 'x' }], task_id: 'x' }) }],
        };
      case 'odd_error':
        return { content: [{ type: 'text', text: JSON.stringify({ error: 'forbidden' }) }] };
      case 'hang':
        return new Promise<ToolAnswer>(() => undefined);
      default:
        return { content: [{ type: 'text', text: JSON.stringify(value) }] };
    }
  }
}

describe('Reconciler', () => {
  let sleeper: FakeCapabilityServer;
  let navigation: FakeCapabilityServer;
  let clock: ManualClock;

  beforeEach(async () => {
    sleeper = new FakeCapabilityServer('sleeper');
    navigation = new FakeCapabilityServer('navigation');
    await sleeper.connect();
    await navigation.connect();
    clock = new ManualClock(Date.UTC(2026, 5, 12, 14, 3));
  });

  afterEach(async () => {
    await sleeper.client.close();
    await navigation.client.close();
  });

  const reconciler = (options: { timeoutMs?: number; logger?: MemoryLogger } = {}): Reconciler =>
    new Reconciler({
      servers: { sleeper: sleeper.client, navigation: navigation.client },
      clock,
      ...options,
    });

  it('lists the running tasks of every server with list_tasks {states: ["running"]}', async () => {
    sleeper.add('slee-000001', 'running');
    sleeper.add('slee-000002', 'succeeded', { result: { slept_s: 3 } });
    navigation.add('navi-000001', 'running', { tool: 'navigate_to', progress: { eta_s: 12 } });
    const report = await reconciler().reconcile();
    expect(report.running.map((t) => t.task_id).sort()).toEqual(['navi-000001', 'slee-000001']);
    expect(report.running.every((t) => t instanceof TaskInfo)).toBe(true);
    expect(report.running.find((t) => t.server === 'navigation')?.progress).toEqual({ eta_s: 12 });
    expect(sleeper.calls).toEqual([{ name: 'list_tasks', args: { states: ['running'] } }]);
    expect(report.errors).toEqual([]);
    expect(report.tasks.size).toBe(0);
  });

  it('gets each tracked task and maps not_found to a SERVER_RESTARTED failure', async () => {
    const done = sleeper.add('slee-000002', 'succeeded', { result: { slept_s: 3 } });
    const tracked: TrackedTask[] = [
      { server: 'sleeper', task_id: 'slee-000002' },
      { server: 'sleeper', task_id: 'slee-dead01', tool: 'sleep_task' },
    ];
    const report = await reconciler().reconcile({ tracked });
    expect(report.tasks.get('slee-000002')?.toJSON()).toEqual(done.toJSON());
    const lost = report.tasks.get('slee-dead01');
    expect(report.lost).toEqual([lost]);
    expect(lost?.toJSON()).toEqual({
      task_id: 'slee-dead01',
      server: 'sleeper',
      tool: 'sleep_task',
      state: 'failed',
      created_at: '2026-06-12T14:03:00.000Z',
      updated_at: '2026-06-12T14:03:00.000Z',
      triggers: [],
      est_duration_s: null,
      progress: null,
      result: null,
      failure: {
        error_code: SERVER_RESTARTED,
        message: expect.stringContaining('restarted') as string,
        recoverable: true,
        suggestions: ['restart_task'],
      },
    });
    expect(lost?.failure).toBeInstanceOf(TaskFailure);
    expect(sleeper.calls.filter((c) => c.name === 'get_task')).toHaveLength(2);
    expect(report.unresolved).toEqual([]);
  });

  it('reports a server whose tools error, and still reconciles the others', async () => {
    sleeper.behaviour = 'tool_error';
    navigation.add('navi-000001', 'failed', {
      failure: TaskFailure.create({ error_code: 'DOOR_CLOSED', message: 'The door is closed.' }),
    });
    const logger = new MemoryLogger();
    const report = await reconciler({ logger }).reconcile({
      tracked: [
        { server: 'sleeper', task_id: 'slee-000001' },
        { server: 'navigation', task_id: 'navi-000001' },
      ],
    });
    expect(report.errors).toEqual([
      { server: 'sleeper', tool: 'list_tasks', error: 'tool error: database locked' },
      { server: 'sleeper', tool: 'get_task', task_id: 'slee-000001', error: 'tool error: database locked' },
    ]);
    expect(report.unresolved).toEqual([{ server: 'sleeper', task_id: 'slee-000001' }]);
    expect(report.tasks.get('navi-000001')?.failure?.error_code).toBe('DOOR_CLOSED');
    expect(logger.at('warn', 'reconciliation call failed')).toHaveLength(2);
  });

  it.each<[Behaviour, RegExp]>([
    ['throw', /kaboom/],
    ['garbage', /not JSON/],
    ['bad_info', /invalid TaskInfo/],
    ['odd_error', /error answer: "forbidden"/],
  ])('reports a server answering %s', async (behaviour, message) => {
    sleeper.behaviour = behaviour;
    const report = await reconciler().reconcile({ tracked: [{ server: 'sleeper', task_id: 'x' }] });
    const getTask = report.errors.find((e) => e.tool === 'get_task');
    expect(getTask?.error).toMatch(message);
    expect(report.errors.find((e) => e.tool === 'list_tasks')).toBeDefined();
    expect(report.tasks.size).toBe(0);
  });

  it('reports a server that does not answer in time, without throwing', async () => {
    sleeper.behaviour = 'hang';
    const report = await reconciler({ timeoutMs: 100 }).reconcile();
    expect(report.errors).toEqual([
      { server: 'sleeper', tool: 'list_tasks', error: expect.stringMatching(/timed out/i) as string },
    ]);
  });

  it('reports a server whose connection is closed', async () => {
    await sleeper.client.close();
    const report = await reconciler().reconcile();
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]?.server).toBe('sleeper');
  });

  it('reports a tracked task of a server it has no client for', async () => {
    const report = await reconciler().reconcile({ tracked: [{ server: 'memory', task_id: 'memo-000001' }] });
    expect(report.unresolved).toEqual([{ server: 'memory', task_id: 'memo-000001' }]);
    expect(report.errors[0]?.error).toMatch(/no MCP client for server "memory"/);
  });

  it('rejects bad options with a ConfigError', () => {
    expect(() => new Reconciler({ servers: null as never })).toThrow(ConfigError);
    expect(() => new Reconciler({ servers: { a: {} as never } })).toThrow(/servers\.a/);
    expect(() => new Reconciler({ servers: {}, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => new Reconciler({ servers: new Map(), concurrency: 1.5 })).toThrow(/concurrency/);
  });

  it('reconciles the receiver open tasks after a gap', async () => {
    sleeper.add('slee-000001', 'succeeded', { result: { slept_s: 5 } });
    const rec = reconciler();
    const reports: Awaited<ReturnType<Reconciler['reconcile']>>[] = [];
    const gaps: SeqGap[] = [];
    const receiver = createEventReceiver({
      secrets: SECRETS,
      onEvent: () => undefined,
      onGap: async (gap) => {
        gaps.push(gap);
        reports.push(await rec.reconcile({ tracked: [gap] }));
      },
    });
    const server = await listen(receiver.handler);
    try {
      await postEvent(server.url, makeEvent({ task_id: 'slee-000001', seq: 1 }));
      await postEvent(server.url, makeEvent({ task_id: 'slee-000001', seq: 4 }));
      await waitFor(() => reports.length === 1);
      expect(gaps).toEqual([{ task_id: 'slee-000001', server: 'sleeper', expected: 2, got: 4 }]);
      expect(reports[0]?.tasks.get('slee-000001')?.state).toBe('succeeded');
      expect(receiver.openTasks()).toEqual([
        { server: 'sleeper', task_id: 'slee-000001', tool: 'sleep_task' },
      ]);
    } finally {
      await receiver.close();
      await server.close();
    }
  });
});
