import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { type JsonObject, silentLogger, TaskManager, type EventPoster } from '@robot-mcp-kit/core';
import { createRedisTaskStore, type RedisTaskStore } from '@robot-mcp-kit/redis/server';
import { type LongRunningToolDefinition } from '../../src/metadata/definitions.types.js';
import { StoreTaskIds } from '../../src/store/task-ids.reserver.js';
import { type ToolCall } from '../../src/tools/registered-tool.js';
import { ConcurrencyLimitError, type TaskIdReserver, TaskStarter } from '../../src/tools/task-starter.js';
import { until } from '../../../../test/support/until.js';

// Issue 27: a task id is reserved in the store before its start. A start that is refused (busy,
// over its limit, shutting down) must not spend the reservation until it expires: the id goes back
// to the pool for the next start, or, once the pool closed, its reservation is released. Real Redis
// (127.0.0.1:6379), one key prefix per test.
const REDIS_URL = 'redis://127.0.0.1:6379/0';
const opened: RedisTaskStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function openStores(): Promise<[RedisTaskStore, RedisTaskStore]> {
  const keyPrefix = `rmk-test-ids-${randomUUID()}:`;
  const mine = await createRedisTaskStore({ url: REDIS_URL, keyPrefix });
  const other = await createRedisTaskStore({ url: REDIS_URL, keyPrefix });
  opened.push(mine, other);
  return [mine, other];
}

/** Ids in the TaskManager's shape, counted. */
function drawing(): { draw: () => string; drawn: string[] } {
  const taskManager = new TaskManager({ serverName: 'rover', logger: silentLogger });
  const drawn: string[] = [];
  return { draw: () => (drawn.push(taskManager.newTaskId()), drawn.at(-1)!), drawn };
}

describe('StoreTaskIds on the real Redis', () => {
  it('hands an id whose start was refused to the next start, still reserved, with no new draw', async () => {
    const [mine, other] = await openStores();
    const { draw, drawn } = drawing();
    const ids = new StoreTaskIds(mine, draw, silentLogger);
    const refused = await ids.take();
    const drawnBefore = drawn.length;
    ids.settle(refused, false);
    expect(await ids.take()).toBe(refused);
    expect(drawn.length).toBe(drawnBefore);
    expect(await other.reserveId(refused)).toBe(false); // still this replica's
    await ids.close();
  });

  it('never hands out an id a task has', async () => {
    const [mine] = await openStores();
    const ids = new StoreTaskIds(mine, drawing().draw, silentLogger);
    const used = await ids.take();
    ids.settle(used, true);
    const next = new Set<string>();
    for (let i = 0; i < 40; i += 1) next.add(await ids.take());
    expect(next.has(used)).toBe(false);
    await ids.close();
  });

  it('releases the reservation of an id whose start is refused after close', async () => {
    const [mine, other] = await openStores();
    const ids = new StoreTaskIds(mine, drawing().draw, silentLogger);
    const inFlight = await ids.take();
    const unused = await ids.take();
    ids.settle(unused, false);
    await ids.close(); // releases what the pool holds: `unused`, not the id of the start in flight
    expect(await other.reserveId(unused)).toBe(true);
    expect(await other.reserveId(inFlight)).toBe(false);
    ids.settle(inFlight, false); // that start was refused (shutting down)
    await until(() => other.reserveId(inFlight), 'the in-flight id released', 10_000);
  });
});

describe('TaskStarter settles every id it took', () => {
  const rover = { name: 'drive', maxConcurrent: 1 } as LongRunningToolDefinition;
  const call: ToolCall = { session: { id: 'session-1' }, extra: {} as ToolCall['extra'] };

  it('as used when the task started, as unused when the start was refused', async () => {
    const poster = { post: () => undefined } as unknown as EventPoster;
    const taskManager = new TaskManager({ serverName: 'rover', poster, logger: silentLogger });
    const starter = new TaskStarter(taskManager);
    const settled: [string, boolean][] = [];
    const taken: string[] = [];
    const reserver: TaskIdReserver = {
      take: () => Promise.resolve(taken[taken.push(taskManager.newTaskId()) - 1]!),
      settle: (taskId, used) => void settled.push([taskId, used]),
    };
    starter.setIdReserver(reserver);
    const body = (ctx: { signal: AbortSignal }): Promise<JsonObject> =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
      );
    const request = { definition: rover, call, triggers: undefined, estDurationS: undefined, body };
    const first = await starter.start(request);
    await expect(starter.start(request)).rejects.toBeInstanceOf(ConcurrencyLimitError);
    expect(first.task_id).toBe(taken[0]);
    expect(settled).toEqual([
      [taken[0], true],
      [taken[1], false],
    ]);
    await taskManager.aclose({ flush: false });
  });
});
