import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { listenSdkHttp } from '../fixtures/sdk-baseline.server.js';
import { createDtoSdkServer } from '../fixtures/sdk-dto-tools.server.js';
import {
  type BenchSide,
  type InterleavedSamples,
  interleave,
  perOpSide,
  type RoundPlan,
} from '../harness/ab-runner.js';
import { childCpuUs } from '../harness/child-cpu.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow, type RowSpec } from '../harness/bench-row.js';

const ECHO = { name: 'echo', arguments: { text: 'hello robot', count: 3 } };
const MOVE = { name: 'move', arguments: { distance_m: 2 } };
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
/** Rounds of `ops` calls each; over stdio spread over `spawns` fresh pairs of server children. */
type Plan = RoundPlan & { ops: number; spawns: number };

/** The kit's bench server as a user's main.ts starts it, on stdio. */
const KIT_STDIO_MAIN = new URL('../fixtures/cold-kit.main.js', import.meta.url);
/** The hand-written SDK server on the same libraries (class-validator DTOs, winston, got), on stdio. */
const SDK_STDIO_MAIN = new URL('../fixtures/cold-sdk-libs.main.js', import.meta.url);
const BASELINE = 'hand-written SDK server validating the same DTO with class-validator';

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

async function httpClient(url: string): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The official SDK client on a server spawned as a child process over stdio, and the child's pid. */
async function stdioClient(main: URL): Promise<{ client: Client; pid: number | null }> {
  const client = newClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main.pathname],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error' },
    stderr: 'inherit',
  });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** A round of sequential calls to a stdio server; its CPU is the server child's (every thread). */
function childSide(
  name: string,
  ops: number,
  server: { client: Client; pid: number | null },
  call: Call,
): BenchSide {
  const calls = perOpSide(name, ops, () => server.client.callTool(call));
  let cpuUs = Number.NaN;
  return {
    name,
    async round() {
      const before = childCpuUs(server.pid);
      const samples = await calls.round();
      cpuUs = childCpuUs(server.pid) - before;
      return samples;
    },
    cpuOfLastRound: () => cpuUs,
  };
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
  plan: Plan,
  afterSubjectRound?: () => Promise<void>,
): Promise<InterleavedSamples> {
  return interleave(
    perOpSide('kit', plan.ops, () => subject.callTool(call), afterSubjectRound),
    perOpSide('sdk', plan.ops, () => baseline.callTool(call)),
    plan,
  );
}

/** Both sides answer every call of the rows correctly before anything is timed. */
async function checkBoth(kit: Client, sdk: Client, calls: readonly [Call, string][]): Promise<void> {
  for (const [call, expect] of calls) {
    await checkedCall(kit, call, expect);
    await checkedCall(sdk, call, expect);
  }
}

/**
 * tools/call over stdio, each server a child process: the kit's bench server (`runServer`) against
 * the hand-written SDK server on the same libraries. The cpu ratio is the server children's (their
 * CPU time per call, every thread, from /proc): the bench process holds only the clients.
 *
 * The rounds are spread over {@link Plan.spawns} fresh pairs of children and pooled. Where the
 * scheduler puts a child (the client's core or the other one) moves its round trip by tens of
 * microseconds for the life of the process — medians of one server spawned three times here lay
 * 60 µs apart — so one pair of children measured the placement as much as the server.
 */
async function stdioRows(ctx: BenchContext, plan: Plan): Promise<BenchRow[]> {
  ctx.log(`tool calls over stdio (servers in child processes, ${plan.spawns} pairs)`);
  const specs = [
    [{ id: 'tool-stdio', scenario: '@Tool call, stdio' }, ECHO],
    [{ id: 'tool-array-dto-stdio', scenario: '@Tool with string[] and nested DTO[] arguments, stdio' }, PLAN],
  ] as const;
  const pooled = specs.map(() => emptySamples());
  const perSpawn = { warmupRounds: 1, rounds: Math.max(2, Math.round(plan.rounds / plan.spawns)) };
  for (let spawn = 0; spawn < plan.spawns; spawn += 1) {
    const kit = await stdioClient(KIT_STDIO_MAIN);
    const sdk = await stdioClient(SDK_STDIO_MAIN);
    try {
      await checkBoth(kit.client, sdk.client, [
        [ECHO, 'hello robot'],
        [PLAN, '"waypoints":4'],
      ]);
      const sides = specs.map(
        ([, call]) => [childSide('kit', plan.ops, kit, call), childSide('sdk', plan.ops, sdk, call)] as const,
      );
      // Every call of the rows warms up before any is timed: a fresh child compiles its hot code
      // on V8's background threads, whose CPU the child's time counts, over the first thousands of
      // calls (the kit has more code to compile, and the first row timed took all of it).
      for (const [kitSide, sdkSide] of sides) {
        await interleave(kitSide, sdkSide, { warmupRounds: plan.warmupRounds, rounds: 0 });
      }
      for (const [index, [kitSide, sdkSide]] of sides.entries()) {
        pool(pooled[index]!, await interleave(kitSide, sdkSide, perSpawn));
      }
    } finally {
      await kit.client.close();
      await sdk.client.close();
    }
  }
  return specs.map(([spec], index) => row({ ...spec, baseline: `${BASELINE}, stdio` }, pooled[index]!));
}

function emptySamples(): InterleavedSamples {
  return { subject: [], baseline: [], cpu: { subject: [], baseline: [] } };
}

/** Adds the samples of `more` to `into`. */
function pool(into: InterleavedSamples, more: InterleavedSamples): void {
  into.subject.push(...more.subject);
  into.baseline.push(...more.baseline);
  into.cpu.subject.push(...more.cpu.subject);
  into.cpu.baseline.push(...more.cpu.baseline);
}

/** tools/call over streamable HTTP on loopback, both servers in this process. */
async function httpRows(ctx: BenchContext, plan: Plan): Promise<BenchRow[]> {
  ctx.log('tool calls, streamable HTTP on loopback');
  const httpKit = newApp();
  const { url } = await httpKit.app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  const sdkHttp = await listenSdkHttp(createDtoSdkServer);
  const kit = await httpClient(url ?? '');
  const sdk = await httpClient(sdkHttp.url);
  try {
    await checkBoth(kit, sdk, [
      [ECHO, 'hello robot'],
      [PLAN, '"waypoints":4'],
      [MOVE, '"state":"running"'],
    ]);
    const baseline = `${BASELINE}, same transport`;
    const rows: BenchRow[] = [];
    let s = await compare(kit, sdk, ECHO, plan);
    rows.push(row({ id: 'tool-http', scenario: '@Tool call, streamable HTTP', baseline }, s));
    s = await compare(kit, sdk, PLAN, plan);
    const arrays = '@Tool with string[] and nested DTO[] arguments, streamable HTTP';
    rows.push(row({ id: 'tool-array-dto-http', scenario: arrays, baseline }, s));
    s = await compare(kit, sdk, MOVE, plan, settleTasks(httpKit));
    const longRunning = '@LongRunningTool call -> task id, streamable HTTP';
    rows.push(
      row(
        {
          id: 'long-running-http',
          scenario: longRunning,
          baseline: `${baseline}; its tool answers a task-like object`,
        },
        s,
      ),
    );
    return rows;
  } finally {
    await kit.close();
    await sdk.close();
    await sdkHttp.close();
    await settleTasks(httpKit)();
    await httpKit.app.close({ timeoutMs: 1000 });
  }
}

/** A row judged against the tool-call target: at most 1.10x the hand-written SDK server. */
function judged(spec: Pick<RowSpec, 'id' | 'scenario' | 'baseline'>): RowSpec {
  return { ...spec, unit: 'us', target: { op: '<=', value: 1.1 } };
}

function row(spec: Pick<RowSpec, 'id' | 'scenario' | 'baseline'>, s: InterleavedSamples): BenchRow {
  return makeRow(judged(spec), s.subject, s.baseline, s.cpu);
}

/**
 * tools/call as a user's client feels it — over stdio to a server process and over streamable
 * HTTP — against a hand-written SDK server whose tools validate the same DTO classes with
 * class-validator.
 */
export async function toolCallBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const plan = sized<Plan>(
    ctx,
    { warmupRounds: 1, rounds: 4, ops: 40, spawns: 1 },
    { warmupRounds: 3, rounds: 24, ops: 200, spawns: 4 },
  );
  return [...(await stdioRows(ctx, plan)), ...(await httpRows(ctx, plan))];
}
