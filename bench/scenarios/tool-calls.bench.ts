import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { createSdkServer, listenSdkHttp } from '../fixtures/sdk-baseline.server.js';
import { type InterleavedSamples, interleave, perOpSide } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

const ECHO = { name: 'echo', arguments: { text: 'hello robot', count: 3 } };
const MOVE = { name: 'move', arguments: { distance_m: 2 } };
const MOVE_NOW = { name: 'move_now', arguments: { distance_m: 2 } };
const PLAN = {
  name: 'plan',
  arguments: {
    tags: ['dock', 'kitchen', 'hall', 'lab'],
    waypoints: [
      { x: 0, y: 0 },
      { x: 1.5, y: 2 },
      { x: 3, y: -1 },
      { x: 4.25, y: 0.5 },
    ],
  },
};
type Call = typeof ECHO | typeof MOVE | typeof PLAN;

function newApp(): { app: RobotMcpApp; server: BenchServer } {
  const server = new BenchServer();
  const app = bootstrap(BenchServer, {
    instance: server,
    eventTransport: new AckEventTransport(),
    env: {},
    logger: silentLogger,
  });
  return { app, server };
}

/** Untimed, after each round: lets the started tasks finish and their events go out. */
function settleTasks(kit: { app: RobotMcpApp; server: BenchServer }): () => Promise<void> {
  return async () => {
    kit.server.releaseAll();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!(await kit.app.poster.flush(10_000))) throw new BenchCheckError('task events did not flush in 10 s');
  };
}

function newClient(): Client {
  return new Client({ name: 'bench-client', version: '1.0.0' });
}

async function inMemoryClient(connectServer: (t: InMemoryTransport) => Promise<unknown>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connectServer(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return client;
}

async function httpClient(url: string): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Calls once and checks the answer, so we never time an error path. */
async function checkedCall(client: Client, call: Call, expect: string): Promise<void> {
  const result = (await client.callTool(call)) as CallToolResult;
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  if (result.isError || !text.includes(expect)) {
    throw new BenchCheckError(`${call.name} answered ${JSON.stringify(result).slice(0, 300)}`);
  }
}

async function compare(
  subject: Client,
  baseline: Client,
  call: Call,
  plan: { warmupRounds: number; rounds: number; ops: number },
  afterSubjectRound?: () => Promise<void>,
  baselineCall: Call = call,
): Promise<InterleavedSamples> {
  return interleave(
    perOpSide('kit', plan.ops, () => subject.callTool(call), afterSubjectRound),
    perOpSide('sdk', plan.ops, () => baseline.callTool(baselineCall)),
    plan,
  );
}

/** `@Tool` and `@LongRunningTool` calls against the hand-written SDK server, in memory and over HTTP. */
export async function toolCallBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // 64 rounds: a comparison spans several old-generation marking cycles. During one, every call
  // here runs up to 2x slower (longer scavenges, fresh pages); with 24 rounds a single cycle
  // fell on 10 of them and the at-once row moved between 0.9x and 1.3x from run to run.
  const memPlan = sized(
    ctx,
    { warmupRounds: 1, rounds: 4, ops: 100 },
    { warmupRounds: 4, rounds: 64, ops: 400 },
  );
  const httpPlan = sized(
    ctx,
    { warmupRounds: 1, rounds: 4, ops: 40 },
    { warmupRounds: 3, rounds: 16, ops: 200 },
  );

  ctx.log('tool calls, in-memory transport');
  const kit = newApp();
  const kitMem = await inMemoryClient((t) => kit.app.connect(t));
  const sdkMem = await inMemoryClient((t) => createSdkServer().connect(t));
  await checkedCall(kitMem, ECHO, 'hello robot');
  await checkedCall(sdkMem, ECHO, 'hello robot');
  await checkedCall(kitMem, MOVE, '"state":"running"');
  await checkedCall(sdkMem, MOVE, '"state":"running"');
  let s = await compare(kitMem, sdkMem, ECHO, memPlan);
  rows.push(
    makeRow(
      {
        id: 'tool-inmemory',
        scenario: '@Tool call, in-memory',
        baseline: 'same tool on a hand-written SDK McpServer',
        unit: 'us',
        target: { op: '<=', value: 1.1 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  );
  s = await compare(kitMem, sdkMem, MOVE, memPlan, settleTasks(kit));
  rows.push(
    makeRow(
      {
        id: 'long-running-inmemory',
        scenario: '@LongRunningTool call -> task id, in-memory',
        baseline: 'plain SDK tool call',
        unit: 'us',
        target: { op: '<=', value: 1.2 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  );
  await checkedCall(kitMem, MOVE_NOW, '"state":"running"');
  await checkedCall(kitMem, PLAN, '"waypoints":4');
  await checkedCall(sdkMem, PLAN, '"waypoints":4');
  s = await compare(kitMem, sdkMem, MOVE_NOW, memPlan, settleTasks(kit), MOVE);
  rows.push(
    makeRow(
      {
        id: 'long-running-at-once-inmemory',
        scenario: '@LongRunningTool whose body returns at once, in-memory',
        baseline: 'plain SDK tool call',
        unit: 'us',
        target: { op: '<=', value: 1.25 },
        notes: 'the body, its task_done event and the poster run inside the timed calls',
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  );
  s = await compare(kitMem, sdkMem, PLAN, memPlan);
  rows.push(
    makeRow(
      {
        id: 'tool-array-dto-inmemory',
        scenario: '@Tool with string[] and nested DTO[] arguments, in-memory',
        baseline: 'same tool on the SDK, zod arrays and objects',
        unit: 'us',
        target: { op: '<=', value: 1.2 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  );
  await kitMem.close();
  await sdkMem.close();
  await settleTasks(kit)();
  await kit.app.close({ timeoutMs: 1000 });

  ctx.log('tool calls, streamable HTTP on loopback');
  const httpKit = newApp();
  const { url } = await httpKit.app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  const sdkHttp = await listenSdkHttp();
  const kitClient = await httpClient(url ?? '');
  const sdkClient = await httpClient(sdkHttp.url);
  await checkedCall(kitClient, ECHO, 'hello robot');
  await checkedCall(sdkClient, ECHO, 'hello robot');
  await checkedCall(kitClient, MOVE, '"state":"running"');
  await checkedCall(sdkClient, MOVE, '"state":"running"');
  s = await compare(kitClient, sdkClient, ECHO, httpPlan);
  rows.push(
    makeRow(
      {
        id: 'tool-http',
        scenario: '@Tool call, streamable HTTP',
        baseline: 'hand-written SDK server, same transport',
        unit: 'us',
        target: { op: '<=', value: 1.1 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  );
  s = await compare(kitClient, sdkClient, MOVE, httpPlan, settleTasks(httpKit));
  rows.push(
    makeRow(
      {
        id: 'long-running-http',
        scenario: '@LongRunningTool call -> task id, streamable HTTP',
        baseline: 'hand-written SDK server, same transport',
        unit: 'us',
        target: { op: '<=', value: 1.1 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  );
  await kitClient.close();
  await sdkClient.close();
  await sdkHttp.close();
  await settleTasks(httpKit)();
  await httpKit.app.close({ timeoutMs: 1000 });
  return rows;
}
