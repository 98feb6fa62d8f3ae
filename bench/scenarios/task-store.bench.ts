import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { redactUrlCredentials } from '@robot-mcp-kit/core/rules';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { createClient, type RedisClientType } from 'redis';
import { benchTaskId, progressEvents } from '../fixtures/bench-events.js';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { LoopbackReceiver } from '../fixtures/receiver.client.js';
import {
  BENCH_REDIS_URL,
  type BenchApp,
  benchKeyPrefix,
  deleteKeys,
  redisUnreachable,
  startBenchApp,
  type StoreRun,
} from '../fixtures/store-apps.fixture.js';
import { batchSide, type BenchSide, interleave, perOpSide } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';
import { summarize } from '../harness/stats.js';
import { startMove, startsSide } from '../fixtures/task-starts.side.js';
import { childReplicas } from './store-replicas.bench.js';

const SECRET = 'bench-secret-0123456789abcdef012345';

/**
 * The `store` group: the shared Redis task store and outbox (`RMK_STORE`) against the in-memory
 * default, and 3 replicas on one Redis against 1. Skipped, with a message, when Redis is not
 * reachable. Every key of the run lives under a prefix of its own and is deleted at the end.
 */
export async function taskStoreBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const url = BENCH_REDIS_URL;
  const unreachable = await redisUnreachable(url);
  if (unreachable !== undefined) {
    ctx.log(
      `store: SKIPPED, Redis not reachable at ${redactUrlCredentials(url)} (${unreachable}); ` +
        'start Redis there or point BENCH_REDIS_URL at one',
    );
    return [];
  }
  const run: StoreRun = { ctx, store: { url, keyPrefix: benchKeyPrefix() } };
  const scenarios = [taskStart, storeDelivery, outboxVsBareLoop, replicas, childReplicas];
  const rows: BenchRow[] = [];
  const failed: string[] = [];
  try {
    // one scenario failing (e.g. a child replica slow to start on a loaded machine) leaves out its
    // row only: the others are still measured and reported, and the run exits non-zero
    for (const scenario of scenarios) {
      try {
        rows.push(await scenario(run));
      } catch (error) {
        failed.push(scenario.name);
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        process.stderr.write(`[bench] store: ${scenario.name} FAILED (its row left out): ${text}\n`);
        process.exitCode = 1;
      }
    }
    if (rows.length === 0) throw new BenchCheckError(`every store scenario failed: ${failed.join(', ')}`);
    return rows;
  } finally {
    const deleted = await deleteKeys(url, run.store.keyPrefix);
    ctx.log(`store: deleted ${deleted} keys under ${run.store.keyPrefix}`);
  }
}

/** How long a round may take to end and flush its events (a loaded shared machine is slow). */
const ROUND_DEADLINE_MS = 120_000;

/** Untimed, after a round: lets every started task finish and its events go out (deadline 120 s). */
async function settle(apps: readonly BenchApp[]): Promise<void> {
  for (const { server } of apps) server.releaseAll();
  await new Promise<void>((resolve) => setImmediate(resolve));
  for (const { app } of apps) {
    if (!(await app.poster.flush(ROUND_DEADLINE_MS))) {
      throw new BenchCheckError(`task events did not flush in ${ROUND_DEADLINE_MS / 1000} s`);
    }
  }
}

async function taskStart(run: StoreRun): Promise<BenchRow> {
  const { ctx } = run;
  ctx.log('store: long-running task start, Redis store vs in memory');
  const plan = sized(ctx, { warmupRounds: 1, rounds: 3, ops: 30 }, { warmupRounds: 2, rounds: 16, ops: 200 });
  const redis = await startBenchApp({
    store: run.store,
    replicaId: 'bench-r0',
    events: new AckEventTransport(),
  });
  const memory = await startBenchApp({ events: new AckEventTransport() });
  try {
    const s = await interleave(
      perOpSide(
        'redis store',
        plan.ops,
        () => startMove(redis.client),
        () => settle([redis]),
      ),
      perOpSide(
        'in memory',
        plan.ops,
        () => startMove(memory.client),
        () => settle([memory]),
      ),
      plan,
    );
    return makeRow(
      {
        id: 'store-task-start',
        scenario: 'long-running task start (tools/call -> TaskInfo), Redis store (RMK_STORE)',
        baseline: 'the same server, tasks in memory (no RMK_STORE)',
        unit: 'us',
        notes:
          'informational: the answer waits for one script (the task write; its id was reserved ahead, ' +
          'in batches); default logger at warn',
      },
      s.subject,
      s.baseline,
      s.cpu,
    );
  } finally {
    await redis.close();
    await memory.close();
  }
}

/** A round: tools/call of `report` (N progress events), then every event delivered and signed. */
function reportSide(name: string, kit: BenchApp, count: number): BenchSide {
  return batchSide(name, async () => {
    const before = kit.app.poster.stats.delivered;
    const result = (await kit.client.callTool({ name: 'report', arguments: { count } })) as CallToolResult;
    if (result.isError) throw new BenchCheckError(`report failed: ${JSON.stringify(result).slice(0, 300)}`);
    // with the outbox each progress waits for Redis: wait on time (a deadline), not on a spin count
    const deadline = Date.now() + ROUND_DEADLINE_MS;
    while (kit.app.taskManager.runningCount > 0) {
      if (Date.now() > deadline) throw new BenchCheckError(`${name}: the task did not end in 120 s`);
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
    if (!(await kit.app.poster.flush(ROUND_DEADLINE_MS))) {
      throw new BenchCheckError(`${name}: no flush in 120 s`);
    }
    const delivered = kit.app.poster.stats.delivered - before;
    if (delivered < count) throw new BenchCheckError(`${name}: delivered ${delivered} of ${count}+ events`);
    return delivered;
  });
}

async function storeDelivery(run: StoreRun): Promise<BenchRow> {
  const { ctx } = run;
  const count = sized(ctx, 50, 300);
  ctx.log(`store: event delivery of ${count} progress events, store + outbox vs in memory`);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 3 }, { warmupRounds: 2, rounds: 10 });
  const receiver = await LoopbackReceiver.start(SECRET, 2, 5);
  const events = { url: `${receiver.baseUrl}/fast`, secret: SECRET };
  const redis = await startBenchApp({ store: run.store, replicaId: 'bench-d0', events });
  const memory = await startBenchApp({ events });
  try {
    const s = await interleave(reportSide('outbox', redis, count), reportSide('memory', memory, count), plan);
    const stats = await receiver.stats();
    if (stats.badSignatures > 0 || stats.outOfOrder > 0) {
      throw new BenchCheckError(`receiver saw ${JSON.stringify(stats)}; expected signed, in order`);
    }
    return makeRow(
      {
        id: 'store-event-delivery',
        scenario: `event delivery through a real server, Redis store + outbox (${count} progress events)`,
        baseline: 'the same server, in-memory poster (no RMK_STORE)',
        unit: 'events/s',
        target: { op: '>=', value: 0.6 },
        notes:
          'issue 27: each ctx.progress() waits for one script (its state write and its XADD); ' +
          'round ends when all are delivered and removed',
      },
      s.subject,
      s.baseline,
      s.cpu,
    );
  } finally {
    await redis.close();
    await memory.close();
    await receiver.close();
  }
}

/**
 * The bare side of {@link outboxVsBareLoop}: the outbox's stream writes and removals by hand on a
 * plain node-redis client — every event's XADD sent at once (one pipeline), then each event POSTed
 * in order (signed, the kit's HTTP transport) and its XDEL sent without waiting for it.
 */
function bareLoopSide(redis: RedisClientType, stream: string, url: string, count: number): BenchSide {
  const transport = new HttpEventTransport({ url, secret: SECRET, serverName: 'bench' });
  return batchSide('bare pipelined loop', async () => {
    const events = progressEvents(benchTaskId(), count);
    const bodies = events.map((e) => JSON.stringify(e));
    const ids = await Promise.all(
      bodies.map((b, i) => redis.xAdd(stream, '*', { e: events[i]!.event_id, b })),
    );
    const removals: Promise<number>[] = [];
    for (let i = 0; i < events.length; i += 1) {
      const outcome = await transport.send({ event: events[i]!, body: bodies[i]!, attempt: 1 });
      if (!outcome.ok) throw new BenchCheckError(`bare loop: ${outcome.error}`);
      removals.push(redis.xDel(stream, ids[i]!));
    }
    await Promise.all(removals);
    return events.length;
  });
}

/**
 * Checks that the kit removed every delivered event: its outbox streams (`<prefix>outbox:*`) empty
 * again within the round deadline (removals run in the background after each delivery).
 */
async function outboxDrained(redis: RedisClientType, prefix: string): Promise<void> {
  const deadline = Date.now() + ROUND_DEADLINE_MS;
  for (;;) {
    let left = 0;
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}outbox:*`, TYPE: 'stream' })) {
      const keys: string[] = Array.isArray(batch) ? batch : [batch as string];
      for (const key of keys) left += await redis.xLen(key);
    }
    if (left === 0) return;
    if (Date.now() > deadline) throw new BenchCheckError(`the kit's outbox kept ${left} delivered events`);
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
  }
}

/** Outbox delivery through a real server against the bare pipelined loop of the same stream work. */
async function outboxVsBareLoop(run: StoreRun): Promise<BenchRow> {
  const { ctx } = run;
  const count = sized(ctx, 50, 300);
  ctx.log(`store: ${count} progress events, store + outbox vs a bare pipelined XADD -> POST -> XDEL loop`);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 3 }, { warmupRounds: 2, rounds: 10 });
  const receiver = await LoopbackReceiver.start(SECRET, 2, 5);
  const url = `${receiver.baseUrl}/fast`;
  const kit = await startBenchApp({
    store: run.store,
    replicaId: 'bench-o0',
    events: { url, secret: SECRET },
  });
  const redis = createClient({ url: run.store.url });
  await redis.connect();
  try {
    const stream = `${run.store.keyPrefix}bare-outbox`;
    const s = await interleave(
      reportSide('outbox', kit, count),
      bareLoopSide(redis, stream, url, count),
      plan,
    );
    const stats = await receiver.stats();
    if (stats.badSignatures > 0) throw new BenchCheckError(`receiver saw ${JSON.stringify(stats)}`);
    const left = await redis.xLen(stream);
    if (left !== 0) throw new BenchCheckError(`bare loop left ${left} entries in its stream`);
    await outboxDrained(redis, run.store.keyPrefix);
    return makeRow(
      {
        id: 'store-outbox-vs-bare-loop',
        scenario: `event delivery through a real server, Redis store + outbox (${count} progress events)`,
        baseline: 'bare node-redis loop: pipelined XADDs, then POST (signed) -> XDEL per event, in order',
        unit: 'events/s',
        target: { op: '>=', value: 0.8 },
        notes:
          'issue 27: the kit side also writes each state (seq) to the task store, in the same ' +
          'script as its append (one round trip), before ctx.progress() returns',
      },
      s.subject,
      s.baseline,
      s.cpu,
    );
  } finally {
    await kit.close();
    await redis.close();
    await receiver.close();
  }
}

async function replicas(run: StoreRun): Promise<BenchRow> {
  const { ctx } = run;
  const total = sized(ctx, 60, 400);
  const inflight = 8;
  ctx.log(`store: ${total} task starts (${inflight} in flight), 3 replicas on one Redis vs 1`);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 3 }, { warmupRounds: 2, rounds: 10 });
  const apps: BenchApp[] = [];
  try {
    for (const id of ['bench-a', 'bench-b', 'bench-c']) {
      apps.push(await startBenchApp({ store: run.store, replicaId: id, events: new AckEventTransport() }));
    }
    const clients = apps.map((kit) => kit.client);
    const s = await interleave(
      startsSide('3 replicas', clients, { total, inflight }, () => settle(apps)),
      startsSide('1 replica', clients.slice(0, 1), { total, inflight }, () => settle(apps.slice(0, 1))),
      plan,
    );
    const rate = (samples: readonly number[]) => Math.round(1e6 / summarize(samples).median);
    return makeRow(
      {
        id: 'store-replicas-3-vs-1',
        scenario: `task starts over 3 replicas sharing one Redis, round-robin (${inflight} in flight)`,
        baseline: '1 replica on the same Redis',
        unit: 'us',
        notes:
          `informational: µs per start under concurrency; ${rate(s.subject)} vs ${rate(s.baseline)} starts/s; ` +
          'the 3 replicas run in this one process (one event loop, separate Redis connections), so this ' +
          'measures what sharing the store costs, not added CPU',
      },
      s.subject,
      s.baseline,
      s.cpu,
    );
  } finally {
    for (const kit of apps) await kit.close();
  }
}
