import { type EventPoster, type TaskBody, type TaskEvent, TaskManager } from '@robot-mcp-kit/core';
import { InMemoryTaskStore, type StoredTask } from '@robot-mcp-kit/core/store';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type LongRunningToolDefinition } from '../../src/metadata/definitions.types.js';
import { TaskStoreBridge } from '../../src/store/task-store.bridge.js';
import { taskStoreSetting } from '../../src/store/task-store.config.js';
import { DtoSchemaBuilder } from '../../src/schema/dto-schema.js';
import { createReconciliationTools } from '../../src/tools/reconciliation.tools.js';
import { type ToolCall } from '../../src/tools/registered-tool.js';
import { TaskStarter } from '../../src/tools/task-starter.js';
import { until } from '../../../../test/support/until.js';
import { type TaskChange } from '@robot-mcp-kit/core/host';
import { type LostTaskListener, REPLICA_LOST } from '@robot-mcp-kit/core/store';
import { connectTestClient } from '@robot-mcp-kit/server/testing';
import { RoverServer } from '../fixtures/rover.server.js';

/** The in-memory store, plus what a lost-replica sweep reports (it never loses a replica itself). */
class LosingStore extends InMemoryTaskStore {
  private readonly lostListeners = new Set<LostTaskListener>();
  override onLostTask(listener: LostTaskListener): () => void {
    this.lostListeners.add(listener);
    return () => void this.lostListeners.delete(listener);
  }
  /** Marks a dead replica's running task failed (as the sweeper does) and reports it. */
  async lose(taskId: string): Promise<StoredTask> {
    const now = new Date().toISOString();
    const failed: StoredTask = {
      scope: 'anonymous',
      owner: 'dead-replica',
      lastSeq: 3,
      task: {
        task_id: taskId,
        server: 'sleeper',
        tool: 'sleep_task',
        state: 'failed',
        created_at: now,
        updated_at: now,
        triggers: [],
        est_duration_s: null,
        progress: null,
        result: null,
        failure: {
          error_code: REPLICA_LOST,
          message: 'its replica stopped',
          recoverable: true,
          suggestions: [],
        },
      },
    };
    await this.put(failed);
    for (const listener of this.lostListeners) await listener(failed);
    return failed;
  }
}

/** One replica: its own TaskManager, starter, bridge and tools, on a shared store. */
function replica(store: InMemoryTaskStore) {
  const posted: TaskEvent[] = [];
  const poster = { post: (e: TaskEvent) => void posted.push(e) } as unknown as EventPoster;
  const taskManager = new TaskManager({ serverName: 'sleeper', poster });
  const starter = new TaskStarter(taskManager);
  const bridge = new TaskStoreBridge({
    taskManager,
    starter,
    poster,
    serverName: 'sleeper',
    logger: taskManager.logger,
    open: () => Promise.resolve(store),
  });
  const tools = createReconciliationTools(taskManager, new DtoSchemaBuilder(), bridge);
  const call: ToolCall = { session: { id: 'session-1' }, extra: {} as ToolCall['extra'] };
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = (await tools.find((t) => t.name === name)!.call(args, call)) as CallToolResult;
    return JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
  };
  /** Starts a `sleep_task` running `body`, as a tools/call on this replica does. */
  const startSleeper = (body: TaskBody) =>
    starter.start({ definition: sleeper, call, triggers: undefined, estDurationS: undefined, body });
  return { taskManager, bridge, tool, posted, startSleeper };
}

const sleeper = { name: 'sleep_task' } as LongRunningToolDefinition;
const untilAborted: TaskBody = (ctx) =>
  new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));

describe('TaskStoreBridge on the InMemoryTaskStore', () => {
  it('answers get_task, list_tasks and cancel_task on B for a task started on A', async () => {
    const store = new InMemoryTaskStore();
    const a = replica(store);
    const b = replica(store);
    await a.bridge.start();
    await b.bridge.start();
    const info = await a.startSleeper(untilAborted);
    // durable start: stored before start() answered
    expect((await store.get('anonymous', info.task_id))?.task.state).toBe('running');
    expect(await b.tool('get_task', { task_id: info.task_id })).toMatchObject({
      task_id: info.task_id,
      state: 'running',
    });
    const listed = (await b.tool('list_tasks', {})) as { tasks: { task_id: string }[] };
    expect(listed.tasks.map((t) => t.task_id)).toEqual([info.task_id]);
    expect(await b.tool('cancel_task', { task_id: info.task_id })).toMatchObject({
      task_id: info.task_id,
      state: 'cancelled',
    });
    expect(a.taskManager.get(info.task_id)?.state).toBe('cancelled');
    // once the body stopped, the store stops saying body_running
    await until(
      async () => (await b.tool('get_task', { task_id: info.task_id })).body_running === undefined,
      'the stored task to show its body stopped',
    );
    expect(await b.tool('get_task', { task_id: 'slee-unknown' })).toEqual({ error: 'not_found' });
    await a.bridge.close();
    await b.bridge.close();
  });

  it('keeps the last seq of a task and writes its final state', async () => {
    const store = new InMemoryTaskStore();
    const a = replica(store);
    await a.bridge.start();
    const info = await a.startSleeper(async (ctx) => {
      await ctx.progress({ percent: 50 });
      return { done: true };
    });
    let stored: StoredTask | undefined;
    await until(async () => {
      stored = await store.get('anonymous', info.task_id);
      return stored?.task.state === 'succeeded';
    }, 'the finished task in the store');
    expect(stored?.lastSeq).toBe(2);
    expect(stored?.task.result).toEqual({ done: true });
    await a.bridge.close();
  });
});

/** A store whose first writes fail (an outage at our own port), then succeed. */
class FlakyStore extends InMemoryTaskStore {
  failuresLeft = 2;

  override put(entry: StoredTask): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      return Promise.reject(new Error('store unreachable'));
    }
    return super.put(entry);
  }
}

/** A store whose writes each take a timer turn (a round trip at our own port): its queue stays busy. */
class SlowWritingStore extends InMemoryTaskStore {
  override async put(entry: StoredTask): Promise<void> {
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
    return super.put(entry);
  }
}

describe('the delivery gate of a task that reports without pause', () => {
  it("answers the start and lets an event go once stored, while the task's later writes are under way", async () => {
    const store = new SlowWritingStore();
    const a = replica(store);
    await a.bridge.start();
    let gateOpened = false;
    let iterations = 0;
    const info = await a.startSleeper(
      // reports until the first event may be delivered, at most 1.5 s (less than the gate's 2 s bound)
      async (ctx) => {
        const deadline = Date.now() + 1500;
        while (!gateOpened && Date.now() < deadline) {
          iterations += 1;
          await ctx.progress({ step: iterations });
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        return { reported: iterations, gate_opened_while_running: gateOpened };
      },
    );
    // the start answers once the task is stored, not once the task's writes pause
    expect(a.taskManager.get(info.task_id)?.state).toBe('running');
    await until(() => a.posted.some((e) => e.type === 'progress'), 'the first progress event');
    const first = a.posted.find((e) => e.type === 'progress')!;
    const opened = a.bridge.mayDeliver(first).then((ok) => {
      gateOpened = true;
      return ok;
    });
    expect(await opened).toBe(true);
    await until(() => a.taskManager.get(info.task_id)?.state === 'succeeded', 'the task to end');
    // before: the gate waited until no write of the task was under way, i.e. until the body stopped
    expect(a.taskManager.get(info.task_id)?.result).toMatchObject({ gate_opened_while_running: true });
    expect((await store.get('anonymous', info.task_id))!.lastSeq).toBeGreaterThanOrEqual(first.seq);
    await a.bridge.close();
  });
});

describe('TaskStoreBridge during a store outage', () => {
  it('logs, counts and retries a failed write until the store takes it', async () => {
    const store = new FlakyStore();
    const a = replica(store);
    await a.bridge.start();
    const info = await a.startSleeper(untilAborted);
    await until(async () => (await store.get('anonymous', info.task_id)) !== undefined, 'the retried write');
    expect(a.bridge.writeErrors).toBe(2);
    await a.taskManager.cancel(info.task_id);
    await until(
      async () => (await store.get('anonymous', info.task_id))?.task.state === 'cancelled',
      'the cancelled state in the store',
    );
    await a.bridge.close();
  });
});

describe('taskStoreSetting', () => {
  it('is off without RMK_STORE and reads the URL and tuning from the environment', () => {
    expect(taskStoreSetting({}, undefined)).toBeUndefined();
    expect(
      taskStoreSetting({ RMK_STORE: 'redis://127.0.0.1:6379/0', RMK_STORE_LEASE_MS: '900' }, undefined),
    ).toEqual({ url: 'redis://127.0.0.1:6379/0', leaseMs: 900 });
  });

  it('refuses a value that is not a Redis URL, naming the variable', () => {
    expect(() => taskStoreSetting({ RMK_STORE: 'localhost:6379' }, undefined)).toThrow(/RMK_STORE/);
    expect(() =>
      taskStoreSetting({ RMK_STORE: 'redis://h:1/0', RMK_STORE_LEASE_MS: 'soon' }, undefined),
    ).toThrow(/RMK_STORE_LEASE_MS/);
  });
});

describe("a lost replica's task failed by this replica", () => {
  it('is relayed through the task channel: posted once, seen by observers, the stored record kept', async () => {
    const store = new LosingStore();
    const r = replica(store);
    await r.bridge.start();
    const changes: TaskChange[] = [];
    r.taskManager.onChange((change) => void changes.push(change));
    const failed = await store.lose('slee-lost1');
    expect(r.posted.map((e) => [e.task_id, e.type, e.seq])).toEqual([['slee-lost1', 'task_failed', 3]]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: 'event', taskId: 'slee-lost1', state: 'failed', relayed: true });
    expect(changes[0]!.task.failure?.error_code).toBe(REPLICA_LOST);
    await r.bridge.close();
    // the bridge did not write the relayed task back as its own
    expect(await store.get('anonymous', 'slee-lost1')).toEqual(failed);
  });

  it('reaches the event feed of the replica that failed it (get_events)', async () => {
    const store = new LosingStore();
    const t = await connectTestClient(RoverServer, { store });
    try {
      await t.json('list_tasks'); // the store is open once a session is
      await store.lose('slee-lost2');
      const page = await t.json<{ entries: { kind: string; event?: { task_id: string; type: string } }[] }>(
        'get_events',
      );
      expect(page.entries.map((e) => [e.kind, e.event?.task_id, e.event?.type])).toEqual([
        ['event', 'slee-lost2', 'task_failed'],
      ]);
      expect(t.events('slee-lost2').map((e) => e.type)).toEqual(['task_failed']);
    } finally {
      await t.close();
    }
  });
});

/** A store that reserves ids (in memory); its release of unused ids never answers when `hangs` (Redis down). */
class ReservingStore extends InMemoryTaskStore {
  readonly reserved = new Set<string>();
  releasedIds: string[] | undefined;

  constructor(private readonly hangs: boolean) {
    super();
  }

  reserveId(taskId: string): Promise<boolean> {
    const free = !this.reserved.has(taskId);
    this.reserved.add(taskId);
    return Promise.resolve(free);
  }

  releaseIds(taskIds: readonly string[]): Promise<number> {
    this.releasedIds = [...taskIds];
    if (this.hangs) return new Promise<number>(() => undefined);
    for (const id of taskIds) this.reserved.delete(id);
    return Promise.resolve(taskIds.length);
  }
}

describe('TaskStoreBridge close with task ids reserved ahead', () => {
  async function startOne(store: ReservingStore) {
    const a = replica(store);
    await a.bridge.start();
    const info = await a.startSleeper(untilAborted);
    await a.taskManager.cancel(info.task_id);
    return { a, taskId: info.task_id };
  }

  it('releases the reservations of the ids it reserved and did not use, keeping the started task’s', async () => {
    const store = new ReservingStore(false);
    const { a, taskId } = await startOne(store);
    expect(store.reserved.size).toBe(16); // one batch reserved ahead, one id used
    await a.bridge.close();
    expect(store.releasedIds).toHaveLength(15);
    expect(store.releasedIds).not.toContain(taskId);
    expect([...store.reserved]).toEqual([taskId]);
  });

  it('closes within its bound when the store never answers the release', async () => {
    const store = new ReservingStore(true);
    const { a } = await startOne(store);
    const closed = a.bridge.close().then(() => 'closed');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('hung'), 10_000)));
    expect(await Promise.race([closed, deadline])).toBe('closed');
    clearTimeout(timer);
    expect(store.releasedIds).toHaveLength(15);
  });
});
