import { afterEach, describe, expect, it } from '@jest/globals';
import { type CallToolResult, CallToolResultSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { TaskManager, type TaskContext, type TaskInfo } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { CapabilityServer, Tool } from '@robot-mcp-kit/server';
import {
  nativeTasksFeature,
  NATIVE_TASKS_DEFAULTS,
  type RegisteredTool,
  type SessionContext,
  type SurfaceTaskNotifier,
  type ToolCall,
} from '@robot-mcp-kit/server/advanced';
import { NativeTaskService } from '../../../src/features/native-tasks/native-task.service.js';
import { TaskProjection } from '../../../src/task-views/task-projection.js';
import { withTaskSupport } from '../../../src/features/native-tasks/task-tool.wrapper.js';
import {
  ArmServer,
  createTask,
  errorCodeOf,
  openGate,
  type Rig,
  rig,
  until,
} from './native-tasks.fixtures.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const arm = (): ArmServer => r!.app.instance as ArmServer;

@CapabilityServer({ name: 'plain', version: '1.0.0' })
class PlainServer {
  @Tool({ description: 'Answers pong' })
  ping(): string {
    return 'pong';
  }
}

describe('wiring', () => {
  it('adds no tasks surface to a server without long-running tools', async () => {
    r = await rig(PlainServer);
    const { client } = await r.peer();
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    expect(await errorCodeOf(client.experimental.tasks.listTasks())).toBe(ErrorCode.MethodNotFound);
  });

  it('lists execution in the registry definitions, from the feature given to bootstrap', async () => {
    r = await rig(ArmServer, { features: [nativeTasksFeature({ pollIntervalMs: 250 })] });
    expect(r.app.registry.get('move')?.execution).toEqual({ taskSupport: 'optional' });
    expect(r.app.registry.definitions.find((t) => t.name === 'ping')).not.toHaveProperty('execution');
    expect(r.app.registry.tools.filter((t) => t.execution).map((t) => t.name)).toEqual([
      'move',
      'count',
      'grip',
    ]);
    const { client } = await r.peer();
    expect((await createTask(client, 'move', { steps: 1 })).pollInterval).toBe(250);
    await openGate(arm());
  });

  it('refuses a task-augmented call over the concurrency limit with invalid request', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    await createTask(client, 'grip', { items: 1 });
    const refused = client.request(
      { method: 'tools/call', params: { name: 'grip', arguments: { items: 1 }, task: {} } },
      CallToolResultSchema,
    );
    expect(await errorCodeOf(refused)).toBe(ErrorCode.InvalidRequest);
    expect(r.app.taskManager.list().filter((t) => t.tool === 'grip')).toHaveLength(1);
    await openGate(arm());
  });

  it('cancels native tasks at shutdown and tells their session', async () => {
    r = await rig(ArmServer);
    const peer = await r.peer();
    const created = await createTask(peer.client, 'move', { steps: 3 });
    await r.app.close({ timeoutMs: 1000 });
    expect(arm().aborted).toEqual([created.taskId]);
    await until(() => peer.statuses.length === 1);
    expect(peer.statuses[0]).toMatchObject({ taskId: created.taskId, status: 'cancelled' });
  });

  it('a throwing task-change observer is logged; the task and the other observers go on', async () => {
    r = await rig(ArmServer);
    const seen: string[] = [];
    r.app.taskManager.onChange(() => {
      throw new Error('observer broke');
    });
    r.app.taskManager.onChange((change) => seen.push(change.kind));
    const move = r.app.registry.get('move')!;
    const call = {
      session: { id: 'direct' },
      extra: { signal: new AbortController().signal },
    } as unknown as ToolCall;
    const result = await move.call({ steps: 1 }, call);
    const taskId = (result.structuredContent as { task_id: string }).task_id;
    await openGate(arm());
    await until(() => r!.app.taskManager.get(taskId)?.state === 'succeeded');
    expect(seen[0]).toBe('started');
    expect(seen.at(-1)).toBe('finished');
    expect(
      r.logger.entries.some((e) => e.message.startsWith('a task change listener threw on started')),
    ).toBe(true);
  });
});

describe('NativeTaskService', () => {
  function service() {
    const taskManager = new TaskManager({ serverName: 'unit' });
    const logger = new MemoryLogger();
    const native = new NativeTaskService({
      taskManager,
      projection: new TaskProjection(taskManager),
      clock: taskManager.clock,
      logger,
      options: NATIVE_TASKS_DEFAULTS,
    });
    return { taskManager, native };
  }

  it('does not record a task for a session that is not (or no longer) open', async () => {
    const { taskManager, native } = service();
    const info = taskManager.start('t', async () => ({}));
    native.track(info.task_id, { id: 'gone' }, 1000);
    expect(native.index.size).toBe(0);
    expect(native.sessionCount).toBe(0);
    native.close();
    await taskManager.aclose();
  });

  it("tracks a task-augmented call on `started`, before the body reports, keeping the call's other tags", async () => {
    const { taskManager, native } = service();
    const other = Symbol('other');
    const session: SessionContext = { id: 's' };
    const trackedAtBodyStart: boolean[] = [];
    let seenTags: ReadonlyMap<symbol, unknown> | undefined;
    const tool: RegisteredTool = {
      name: 'fake',
      description: 'fake',
      annotations: {},
      inputSchema: { type: 'object' },
      origin: 'decorated',
      longRunning: true,
      actuates: false,
      call: async (): Promise<CallToolResult> => ({ content: [] }),
      start: async (_args: unknown, call: ToolCall): Promise<TaskInfo> => {
        seenTags = call.tags;
        return taskManager.start(
          'fake',
          async (ctx: TaskContext) => {
            trackedAtBodyStart.push(native.index.find(ctx.taskId) !== undefined);
            await ctx.progress({ percent: 10 });
            return {};
          },
          { origin: { sessionId: session.id, ...(call.tags ? { tags: call.tags } : {}) } },
        );
      },
    };
    const sent: string[] = [];
    const notifier: SurfaceTaskNotifier = {
      taskStatus: () => void sent.push('notifications/tasks/status'),
      progress: () => void sent.push('notifications/progress'),
    };
    native.attachSession(notifier, session);
    const wrapped = withTaskSupport(tool, native);
    const call = {
      session,
      extra: { _meta: { progressToken: 'p' } },
      tags: new Map([[other, 'kept']]),
    } as unknown as ToolCall;
    const created = await wrapped.callAsTask!({}, call, {});
    await until(() => taskManager.get(created.task.taskId)?.state === 'succeeded');
    expect(trackedAtBodyStart).toEqual([true]);
    expect(seenTags?.get(other)).toBe('kept');
    expect(sent).toEqual(['notifications/progress', 'notifications/tasks/status']);
    expect(withTaskSupport(wrapped, native)).not.toBe(wrapped);
    const plain = { ...tool, start: undefined };
    expect(withTaskSupport(plain, native)).toBe(plain);
    native.close();
    await taskManager.aclose();
  });
});
