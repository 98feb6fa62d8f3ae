import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskResultSchema,
  ErrorCode,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type TaskContext, type TaskInfo, TaskManager } from '@robot-mcp-kit/core';
import { type StoredTask } from '@robot-mcp-kit/core/store';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { type SessionContext } from '@robot-mcp-kit/server/advanced';
import { type TaskStoreBridge } from '../../src/store/task-store.bridge.js';
import { SdkV1SessionSurface } from '../../src/surface/sdk-v1.session-surface.js';
import { type SurfaceCaller } from '../../src/surface/session-surface.port.js';
import { PrincipalHandleTable } from '../../src/task-methods/principal-handles.table.js';
import { SessionHandleTable } from '../../src/task-methods/session-handles.table.js';
import { principalHandles, sessionHandles } from '../../src/task-methods/task-handle.policy.js';
import { TaskWaitAbortedError } from '../../src/task-methods/task-method.errors.js';
import { TaskMethods } from '../../src/task-methods/task-methods.component.js';

const managers: TaskManager[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.aclose();
});

/** A TaskManager whose tasks run until their gate opens (or they are cancelled). */
function tasks(): { manager: TaskManager; start: () => { info: TaskInfo; open: () => void } } {
  const manager = new TaskManager({ serverName: 'unit' });
  managers.push(manager);
  const start = () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const info = manager.start('move', async (ctx: TaskContext) => {
      await Promise.race([gate, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
      return { moved: true };
    });
    return { info, open };
  };
  return { manager, start };
}

async function ended(manager: TaskManager, taskId: string): Promise<void> {
  for (let i = 0; i < 1000 && manager.get(taskId)?.state === 'running'; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('TaskMethods with session-bound handles (SEP-1686)', () => {
  const retention = { ttl: 1000, pollInterval: 100 };
  const a: SessionContext = { id: 'a' };
  const b: SessionContext = { id: 'b' };
  const callerA: SurfaceCaller = { scope: 'alice', session: a };

  function methods(allows?: (scope: string, taskId: string) => boolean) {
    const { manager, start } = tasks();
    const index = new SessionHandleTable(new ManualClock(), 100, () => undefined);
    const component = new TaskMethods({
      taskManager: manager,
      handles: sessionHandles(index),
      pageSize: 2,
      ...(allows ? { allows } : {}),
    });
    return { manager, start, index, component };
  }

  it('finds a task by its kit id for the creating session only, and only if the owner rule allows it', async () => {
    const { start, index, component } = methods((scope, taskId) => scope === 'alice' || taskId === 'none');
    const { info } = start();
    index.ensure(info.task_id, a, retention);
    await expect(component.get(info.task_id, callerA)).resolves.toMatchObject({
      handle: info.task_id,
      taskId: info.task_id,
      ttl: 1000,
      pollInterval: 100,
      info: expect.objectContaining({ state: 'running' }),
    });
    await expect(component.get(info.task_id, { scope: 'alice', session: b })).resolves.toBeUndefined();
    await expect(component.get(info.task_id, { scope: 'bob', session: a })).resolves.toBeUndefined();
    await expect(component.get(info.task_id, { scope: 'alice' })).resolves.toBeUndefined();
    expect(component.list({ scope: 'bob', session: a }, undefined).views).toEqual([]);
  });

  it('pages the caller’s tasks and answers the kept final snapshot once the manager forgot the task', async () => {
    const { manager, start, index, component } = methods();
    const started = [start(), start(), start()];
    for (const { info } of started) index.ensure(info.task_id, a, retention);
    const first = component.list(callerA, undefined);
    expect(first.views.map((view) => view.taskId)).toEqual(
      started.slice(0, 2).map(({ info }) => info.task_id),
    );
    const second = component.list(callerA, first.nextCursor);
    expect(second).toEqual({ views: [expect.objectContaining({ taskId: started[2]!.info.task_id })] });

    const { info, open } = started[0]!;
    open();
    await ended(manager, info.task_id);
    index.finish(index.find(info.task_id)!, manager.get(info.task_id)!);
    expect(manager.forget(info.task_id)).toBe(true);
    await expect(component.get(info.task_id, callerA)).resolves.toMatchObject({
      info: expect.objectContaining({ state: 'succeeded' }),
    });
  });

  it('cancels a running task, refuses a finished one, and awaits the end until the request aborts', async () => {
    const { manager, start, index, component } = methods();
    const running = start();
    const done = start();
    const waited = start();
    for (const { info } of [running, done, waited]) index.ensure(info.task_id, a, retention);
    await expect(component.cancel(running.info.task_id, callerA)).resolves.toMatchObject({
      cancelled: true,
      view: { info: expect.objectContaining({ state: 'cancelled' }) },
    });
    done.open();
    await ended(manager, done.info.task_id);
    await expect(component.cancel(done.info.task_id, callerA)).resolves.toMatchObject({
      cancelled: false,
      view: { info: expect.objectContaining({ state: 'succeeded' }) },
    });
    await expect(component.cancel('unknown', callerA)).resolves.toBeUndefined();

    const aborted = new AbortController();
    const abandoned = component.ended(waited.info.task_id, callerA, aborted.signal);
    const awaited = component.ended(waited.info.task_id, callerA, new AbortController().signal);
    aborted.abort();
    await expect(abandoned).rejects.toBeInstanceOf(TaskWaitAbortedError);
    waited.open();
    await ended(manager, waited.info.task_id);
    index.finish(index.find(waited.info.task_id)!, manager.get(waited.info.task_id)!);
    await expect(awaited).resolves.toMatchObject({ info: expect.objectContaining({ state: 'succeeded' }) });
  });
});

describe('TaskMethods with principal-bound handles (SEP-2663)', () => {
  const alice: SurfaceCaller = { scope: 'alice', principal: 'alice' };

  it('creates a UUID handle bound to the principal, forgotten after its TTL', async () => {
    const { manager, start } = tasks();
    const clock = new ManualClock();
    const handles = principalHandles(new PrincipalHandleTable(clock), { ttlMs: 5000, pollIntervalMs: 250 });
    const component = new TaskMethods({ taskManager: manager, handles });
    const { info } = start();
    const view = await component.create(info, alice);
    expect(view).toMatchObject({ taskId: info.task_id, ttl: 5000, pollInterval: 250 });
    expect(view.handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await expect(component.get(view.handle, alice)).resolves.toMatchObject({ taskId: info.task_id });
    await expect(component.get(info.task_id, alice)).resolves.toBeUndefined();
    await expect(component.get(view.handle, { scope: 'bob', principal: 'bob' })).resolves.toBeUndefined();
    await expect(component.get(view.handle, { scope: 'anonymous' })).resolves.toBeUndefined();
    expect(component.list(alice, undefined)).toEqual({ views: [] });
    await clock.advance(5001);
    await expect(component.get(view.handle, alice)).resolves.toBeUndefined();
  });

  it('records the handle as a store alias and answers and cancels another replica’s task through the store', async () => {
    const { manager, start } = tasks();
    const { info } = start();
    const remote: StoredTask = {
      scope: 'alice',
      owner: 'replica-2',
      lastSeq: 0,
      task: { ...JSON.parse(JSON.stringify(info.toJSON())), task_id: 'unit-remote' },
    };
    const aliases = new Map<string, string>();
    const cancels: string[] = [];
    const stored = {
      active: true,
      putAlias: async (alias: string, taskId: string) => void aliases.set(alias, taskId),
      getByAlias: async (scope: string, alias: string) =>
        scope === remote.scope && alias === 'elsewhere' ? remote : undefined,
      cancelRemote: async (entry: StoredTask) => {
        cancels.push(entry.task.task_id);
        return { ...entry, task: { ...entry.task, state: 'cancelled' } } as StoredTask;
      },
    } as unknown as TaskStoreBridge;
    const handles = principalHandles(new PrincipalHandleTable(new ManualClock()));
    const component = new TaskMethods({ taskManager: manager, handles, stored });
    const view = await component.create(info, alice);
    expect(aliases.get(view.handle)).toBe(info.task_id);
    await expect(component.get('elsewhere', alice)).resolves.toMatchObject({
      handle: 'elsewhere',
      taskId: 'unit-remote',
      info: expect.objectContaining({ state: 'running' }),
    });
    await expect(component.get('elsewhere', { scope: 'bob', principal: 'bob' })).resolves.toBeUndefined();
    await expect(component.cancel('elsewhere', alice)).resolves.toMatchObject({ cancelled: true });
    expect(cancels).toEqual(['unit-remote']);
    expect(manager.get(info.task_id)?.state).toBe('running');
    await expect(component.ended('elsewhere', alice, new AbortController().signal)).rejects.toThrow(
      /cannot await/,
    );
  });
});

describe('SEP-1686 on the v1 session surface', () => {
  it('maps the task methods to tasks/get, tasks/list and tasks/cancel with the SEP-1686 errors', async () => {
    const { manager, start } = tasks();
    const session: SessionContext = { id: 's' };
    const index = new SessionHandleTable(new ManualClock(), 100, () => undefined);
    const component = new TaskMethods({ taskManager: manager, handles: sessionHandles(index) });
    const server = new Server({ name: 'unit', version: '1' });
    const surface = new SdkV1SessionSurface(server, session, () => 'anonymous', new MemoryLogger());
    surface.serveTaskMethods(component);
    const client = new Client({ name: 'unit', version: '1' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { info, open } = start();
      index.ensure(info.task_id, session, { ttl: 1000, pollInterval: 100 });
      const got = await client.request(
        { method: 'tasks/get', params: { taskId: info.task_id } },
        GetTaskResultSchema,
      );
      expect(got).toMatchObject({ taskId: info.task_id, status: 'working', ttl: 1000, pollInterval: 100 });
      const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
      expect(listed.tasks.map((task) => task.taskId)).toEqual([info.task_id]);
      await expect(
        client.request({ method: 'tasks/get', params: { taskId: 'nope' } }, GetTaskResultSchema),
      ).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringMatching(/is not a task of this session/),
      });
      open();
      await ended(manager, info.task_id);
      await expect(
        client.request({ method: 'tasks/cancel', params: { taskId: info.task_id } }, CancelTaskResultSchema),
      ).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringMatching(/already completed/),
      });
    } finally {
      await client.close();
    }
  });
});
