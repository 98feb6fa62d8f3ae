import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type BenchSide, interleave } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';
import { microsSince } from '../harness/stats.js';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** User + system CPU µs the process has used so far, from /proc (Linux); NaN elsewhere. */
function processCpuUs(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / USER_HZ;
  } catch {
    return Number.NaN;
  }
}

/**
 * One side: spawns `node <script>` with the SDK's stdio client transport, initializes, lists the
 * tools, and reports the wall time from spawn to the tools/list answer; the child's CPU time up to
 * then goes to `cpu`.
 */
function coldSide(name: string, script: URL, tools: number, cpu: number[]): BenchSide {
  return {
    name,
    async round() {
      const client = new Client({ name: 'bench-cold', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [script.pathname],
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error' },
        stderr: 'ignore',
      });
      const start = process.hrtime.bigint();
      await client.connect(transport);
      const listed = await client.listTools();
      const elapsed = microsSince(start);
      cpu.push(processCpuUs(transport.pid));
      await client.close();
      if (listed.tools.length !== tools) {
        throw new BenchCheckError(`${name} listed ${listed.tools.length} tools, expected ${tools}`);
      }
      return [elapsed];
    },
  };
}

const fixture = (name: string): URL => new URL(`../fixtures/${name}`, import.meta.url);

/**
 * Cold start over stdio, spawn → first tools/list answer: the kit's server against a hand-written
 * SDK server that imports the same libraries (judged), and against a bare SDK server (informational).
 */
export async function coldStartBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const plan = sized(ctx, { warmupRounds: 1, rounds: 2 }, { warmupRounds: 1, rounds: 12 });
  // The kit's bench server offers its own tools plus the built-in reconciliation tools.
  const kitTools = await countKitTools();
  ctx.log('cold start over stdio: spawn -> first tools/list, against the SDK server on the same libraries');
  const libs = await coldPair(kitTools, 'cold-sdk-libs.main.js', plan);
  ctx.log('cold start over stdio: spawn -> first tools/list, against a bare SDK server');
  const bare = await coldPair(kitTools, 'cold-sdk.main.js', plan);
  const notes = 'cpu ratio: the child processes’ CPU time (/proc, 10 ms ticks)';
  return [
    makeRow(
      {
        id: 'cold-start-stdio',
        scenario: 'cold start, stdio: spawn -> first tools/list',
        baseline:
          'hand-written SDK server importing the same libraries (class-validator, class-transformer, class-validator-jsonschema, winston, got)',
        unit: 'us',
        target: { op: '<=', value: 1.15 },
        notes,
      },
      ...libs,
    ),
    makeRow(
      {
        id: 'cold-start-bare-sdk',
        scenario: 'cold start, stdio: spawn -> first tools/list',
        baseline: 'bare hand-written SDK server (McpServer + zod + stdio, none of those libraries)',
        unit: 'us',
        notes: `informational: what the libraries and the kit cost together at start; ${notes}`,
      },
      ...bare,
    ),
  ];
}

/** The kit's server and one SDK baseline (3 tools), in alternating rounds. */
async function coldPair(
  kitTools: number,
  baseline: string,
  plan: Parameters<typeof interleave>[2],
): Promise<[number[], number[], { subject: number[]; baseline: number[] }]> {
  const kitCpu: number[] = [];
  const sdkCpu: number[] = [];
  const s = await interleave(
    coldSide('kit', fixture('cold-kit.main.js'), kitTools, kitCpu),
    coldSide('sdk', fixture(baseline), 3, sdkCpu),
    plan,
  );
  const skip = plan.warmupRounds;
  return [s.subject, s.baseline, { subject: kitCpu.slice(skip), baseline: sdkCpu.slice(skip) }];
}

async function countKitTools(): Promise<number> {
  const { bootstrap } = await import('@robot-mcp-kit/server');
  const { BenchServer } = await import('../fixtures/bench.server.js');
  const { silentLogger } = await import('@robot-mcp-kit/core');
  const app = bootstrap(BenchServer, { env: {}, logger: silentLogger });
  const count = app.registry.definitions.length;
  await app.close({ timeoutMs: 1000 });
  return count;
}
