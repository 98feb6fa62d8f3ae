import http from 'node:http';
import got from 'got';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger, EventPoster, type TaskEvent } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { bootstrap } from '@robot-mcp-kit/server';
import { BenchServer } from '../fixtures/bench.server.js';
import { interleavedEvents, benchTaskId, progressEvents } from '../fixtures/bench-events.js';
import { LoopbackReceiver } from '../fixtures/receiver.client.js';
import { batchSide, type BenchSide, interleave } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

const SECRET = 'bench-secret-0123456789abcdef012345';

/** A poster with the default delivery settings, or `lanes` when given. */
function newPoster(url: string, lanes?: number): EventPoster {
  const transport = new HttpEventTransport({ url, secret: SECRET, serverName: 'bench' });
  return new EventPoster({
    serverName: 'bench',
    transport,
    maxQueue: 100_000,
    ...(lanes === undefined ? {} : { lanes }),
  });
}

/** Posts every event, waits until all are delivered; returns how many. */
async function deliverAll(poster: EventPoster, events: readonly TaskEvent[]): Promise<number> {
  const before = poster.stats.delivered;
  for (const event of events) poster.post(event);
  if (!(await poster.flush(120_000))) throw new BenchCheckError('the poster did not flush in 120 s');
  const delivered = poster.stats.delivered - before;
  if (delivered !== events.length) {
    throw new BenchCheckError(
      `delivered ${delivered} of ${events.length} events (stats ${JSON.stringify(poster.stats)})`,
    );
  }
  return delivered;
}

/** Fails the scenario when the receiver saw a bad signature or an event out of order. */
async function checkReceiver(receiver: LoopbackReceiver, expectSigned: number): Promise<void> {
  const stats = await receiver.stats();
  if (stats.badSignatures > 0 || stats.outOfOrder > 0 || stats.signed < expectSigned) {
    throw new BenchCheckError(
      `receiver saw ${JSON.stringify(stats)}; expected ${expectSigned} signed, in order`,
    );
  }
  await receiver.reset();
}

/** Signed in-order delivery vs a bare got loop; many tasks over the default lanes vs one queue. */
export async function eventDeliveryBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const receiver = await LoopbackReceiver.start(SECRET, 2, 5);
  try {
    rows.push(...(await sequentialDelivery(ctx, receiver)));
    rows.push(...(await realServerDelivery(ctx, receiver)));
    rows.push(await manyTasks(ctx, receiver));
  } finally {
    await receiver.close();
  }
  return rows;
}

async function sequentialDelivery(ctx: BenchContext, receiver: LoopbackReceiver): Promise<BenchRow[]> {
  ctx.log('event delivery, one task, signed, in order');
  const perRound = sized(ctx, 100, 400);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 3 }, { warmupRounds: 2, rounds: 16 });
  const url = `${receiver.baseUrl}/fast`;
  const poster = newPoster(url);
  const agent = new http.Agent({ keepAlive: true });
  let signedExpected = 0;
  const subject = batchSide('kit', async () => {
    const events = progressEvents(benchTaskId(), perRound);
    signedExpected += events.length;
    return deliverAll(poster, events);
  });
  const s = await interleave(subject, gotLoop(url, agent, perRound), plan);
  await checkReceiver(receiver, signedExpected);
  await poster.aclose({ timeoutMs: 1000 });
  agent.destroy();
  return [
    makeRow(
      {
        id: 'delivery-sequential',
        scenario: 'event delivery, signed, in order (one task, poster alone)',
        baseline: 'bare sequential keep-alive got POST loop',
        unit: 'events/s',
        target: { op: '>=', value: 0.8 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  ];
}

/** `count` unsigned events POSTed one after the other by `await got.post()` on a keep-alive agent. */
function gotLoop(url: string, agent: http.Agent, count: number): BenchSide {
  return batchSide('got loop', async () => {
    const bodies = progressEvents(benchTaskId(), count).map((e) => JSON.stringify(e));
    for (const body of bodies) {
      const response = await got.post(url, {
        body,
        headers: { 'Content-Type': 'application/json' },
        agent: { http: agent },
        throwHttpErrors: false,
      });
      if (response.statusCode !== 200) throw new BenchCheckError(`receiver answered ${response.statusCode}`);
    }
    return bodies.length;
  });
}

/**
 * Delivery through a real server: a kit server (bootstrapped from the environment like a user's,
 * `RVC_CALLBACK_URL` at the receiver) runs a task whose body sends `count` progress events; the
 * round ends when every event of the task (started, progress, done) is delivered. Compared with
 * a bare got loop posting as many events (the kit posts through got too, one extended instance).
 */
async function realServerDelivery(ctx: BenchContext, receiver: LoopbackReceiver): Promise<BenchRow[]> {
  ctx.log('event delivery through a real server (MCP call -> task -> signed POSTs)');
  const count = sized(ctx, 100, 400);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 3 }, { warmupRounds: 2, rounds: 12 });
  const url = `${receiver.baseUrl}/fast`;
  const app = bootstrap(BenchServer, {
    env: { RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: SECRET, LOG_LEVEL: 'warn' },
    logger: createLogger({ level: 'warn', env: {} }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  let signedExpected = 0;
  const subject = batchSide('kit server', async () => {
    const before = app.poster.stats.delivered;
    const result = (await client.callTool({ name: 'report', arguments: { count } })) as CallToolResult;
    if (result.isError) throw new BenchCheckError(`report failed: ${JSON.stringify(result).slice(0, 300)}`);
    for (let i = 0; i < 10_000 && app.taskManager.runningCount > 0; i += 1) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!(await app.poster.flush(120_000))) throw new BenchCheckError('the server did not flush in 120 s');
    const delivered = app.poster.stats.delivered - before;
    if (delivered < count) throw new BenchCheckError(`delivered ${delivered} of ${count}+ events`);
    signedExpected += delivered;
    return delivered;
  });
  const agent = new http.Agent({ keepAlive: true });
  const g = await interleave(subject, gotLoop(url, agent, count), plan);
  await checkReceiver(receiver, signedExpected);
  await client.close();
  await app.close({ timeoutMs: 1000 });
  agent.destroy();
  const spec = {
    scenario: 'event delivery through a real server (one task, signed)',
    unit: 'events/s' as const,
    notes: 'round = tools/call of a task sending N progress events -> every event delivered',
  };
  return [
    makeRow(
      {
        ...spec,
        id: 'delivery-server-vs-got',
        baseline: 'bare keep-alive got POST loop',
        target: { op: '>=', value: 0.9 },
      },
      g.subject,
      g.baseline,
      g.cpu,
    ),
  ];
}

async function manyTasks(ctx: BenchContext, receiver: LoopbackReceiver): Promise<BenchRow> {
  const tasks = sized(ctx, 16, 64);
  const perTask = sized(ctx, 4, 8);
  ctx.log(`event delivery, ${tasks} tasks at once, receiver answering in 2-5 ms: default lanes vs 1`);
  const plan = sized(ctx, { warmupRounds: 0, rounds: 2 }, { warmupRounds: 1, rounds: 6 });
  const url = `${receiver.baseUrl}/slow`;
  const lanesDefault = newPoster(url);
  const lanes1 = newPoster(url, 1);
  let signedExpected = 0;
  const side = (name: string, poster: EventPoster) =>
    batchSide(name, async () => {
      const events = interleavedEvents(tasks, perTask);
      signedExpected += events.length;
      return deliverAll(poster, events);
    });
  const s = await interleave(side('default lanes', lanesDefault), side('lanes: 1', lanes1), plan);
  await checkReceiver(receiver, signedExpected);
  await lanesDefault.aclose({ timeoutMs: 1000 });
  await lanes1.aclose({ timeoutMs: 1000 });
  return makeRow(
    {
      id: 'delivery-lanes',
      scenario: `event delivery, ${tasks} tasks at once, receiver 2-5 ms (default lanes)`,
      baseline: 'single-queue poster (lanes: 1)',
      unit: 'events/s',
      target: { op: '>=', value: 3 },
    },
    s.subject,
    s.baseline,
    s.cpu,
  );
}
