import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type CapabilityServerClass, type RobotMcpApp } from '@robot-mcp-kit/server';
import { SleeperServer } from '../../examples/sleeper/src/sleeper.server.js';
import { figure } from './helpers/drive.js';
import { rejectionRecorder } from './helpers/rig.js';

// Every tool of the examples, called through the official SDK client (in-memory transport, so
// objects arrive as they are: NaN, Infinity, own __proto__ keys) with random and hostile
// arguments. Each call must get a result or a clean tool error, and the server keeps serving.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const rejections = rejectionRecorder();
beforeAll(() => rejections.install());
afterAll(() => {
  rejections.remove();
  expect(rejections.seen).toEqual([]);
});

const MB = 1024 * 1024;

/** The example servers present in this checkout (navigation and perception are optional). */
async function exampleServers(): Promise<[string, CapabilityServerClass][]> {
  const servers: [string, CapabilityServerClass][] = [['sleeper', SleeperServer]];
  const optional: [string, string, string][] = [
    ['navigation', '../../examples/navigation/src/navigation.server.js', 'NavigationServer'],
    [
      'perception-watcher',
      '../../examples/perception-watcher/src/perception-watcher.server.js',
      'PerceptionWatcherServer',
    ],
  ];
  for (const [name, path, exported] of optional) {
    if (!existsSync(new URL(path.replace(/\.js$/, '.ts'), import.meta.url))) continue;
    const module = (await import(path)) as Record<string, CapabilityServerClass>;
    if (module[exported]) servers.push([name, module[exported]]);
  }
  return servers;
}

function deep(levels: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < levels; i += 1) value = i % 2 ? { nested: value } : [value];
  return value;
}

/** Hostile values for one property. */
function hostileValues(): unknown[] {
  return [
    null,
    true,
    -1,
    0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -0,
    Number.MAX_SAFE_INTEGER * 4,
    '',
    'x'.repeat(MB),
    '\u0000\ud800 \u202e',
    [],
    new Array(16 * 1024).fill('y'.repeat(64)),
    {},
    deep(1000),
    JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
    { constructor: { prototype: { polluted: true } } },
  ];
}

/** Whole argument objects that are wrong as a whole. */
function hostileArguments(tool: Tool): unknown[] {
  const props = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const out: unknown[] = [
    undefined,
    {},
    { unknown_field: 1 },
    JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
    JSON.parse('{"constructor": {"prototype": {"polluted": true}}}') as unknown,
    { ['k'.repeat(MB)]: 1 },
    Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`p${i}`, i])),
    deep(1000),
    { triggers: new Array(10_000).fill({ type: 'progress_above', percent: 1 }) },
    { triggers: [{ type: 'eta_below', seconds: Number.NaN }, { type: '__proto__' }] },
    { triggers: 'soon' },
  ];
  for (const prop of props) for (const value of hostileValues()) out.push({ [prop]: value });
  return out;
}

/** JSON-RPC errors a malformed call may get (never a crash, never a hang). */
const CLEAN_RPC_CODES = new Set<number>([ErrorCode.InvalidParams, ErrorCode.InvalidRequest]);

interface Outcome {
  kind: 'result' | 'tool_error' | 'rpc_error';
  text: string;
}

async function callSafely(client: Client, name: string, args: unknown): Promise<Outcome> {
  try {
    const result = (await client.callTool({
      name,
      arguments: args as Record<string, unknown>,
    })) as CallToolResult;
    expect(Array.isArray(result.content)).toBe(true);
    const first = result.content[0];
    const text = first?.type === 'text' ? first.text : '';
    return { kind: result.isError ? 'tool_error' : 'result', text };
  } catch (error) {
    if (error instanceof McpError && CLEAN_RPC_CODES.has(error.code))
      return { kind: 'rpc_error', text: error.message };
    throw error;
  }
}

async function connect(ServerClass: CapabilityServerClass) {
  const logger = new MemoryLogger();
  const clock = new ManualClock();
  const app: RobotMcpApp = bootstrap(ServerClass, {
    eventTransport: new InMemoryEventTransport(),
    env: {},
    logger,
    clock,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  await client.connect(clientSide);
  return { app, client, logger, clock };
}

/**
 * Awaits a call; a tool that waits on the clock (wait_for_event) gets fake seconds until it
 * answers (at most 10 fake minutes).
 */
async function withClock<T>(clock: ManualClock, pending: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = pending.finally(() => {
    settled = true;
  });
  for (let i = 0; i < 600 && !settled; i += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!settled) await clock.advance(1000);
  }
  return tracked;
}

function describeArgs(args: unknown): string {
  try {
    const text = JSON.stringify(args) ?? String(args);
    return text.length > 120 ? `${text.slice(0, 120)}... (${text.length})` : text;
  } catch {
    return '<unserializable>';
  }
}

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / MB;
}

describe('fuzzing every tool of the examples', () => {
  it('answers every hostile call with a result or a clean error, and keeps serving', async () => {
    const servers = await exampleServers();
    let calls = 0;
    const byKind: Record<string, number> = { result: 0, tool_error: 0, rpc_error: 0 };
    let baseline = 0;
    for (const [round, [name, ServerClass]] of [servers[0]!, ...servers].entries()) {
      const { app, client, logger, clock } = await connect(ServerClass);
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(3);
      const check = async (tool: string, args: unknown) => {
        const t0 = Date.now();
        if (process.env.FUZZ_DEBUG) process.stdout.write(`call ${name} ${tool} ${describeArgs(args)}\n`);
        const outcome = await withClock(clock, callSafely(client, tool, args));
        if (process.env.FUZZ_DEBUG)
          process.stdout.write(`  -> ${outcome.kind} ${Date.now() - t0} ms ${outcome.text.slice(0, 120)}\n`);
        calls += 1;
        byKind[outcome.kind] = (byKind[outcome.kind] ?? 0) + 1;
        // A clean error names the problem without echoing megabytes of input back.
        if (outcome.kind === 'result') return;
        const head = { tool, kind: outcome.kind, text: outcome.text.slice(0, 300) };
        expect({ ...head, length: outcome.text.length < 20_000 }).toEqual({ ...head, length: true });
        expect(outcome.text.length).toBeGreaterThan(0);
      };
      for (const tool of tools) for (const args of hostileArguments(tool)) await check(tool.name, args);
      await check('no_such_tool', {});
      await check('x'.repeat(MB), {});
      await check('__proto__', {});
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...tools.map((t) => t.name)),
          fc.oneof(
            fc.dictionary(fc.string(), fc.anything()),
            fc.record(
              Object.fromEntries(
                tools
                  .flatMap((t) => Object.keys((t.inputSchema.properties as object | undefined) ?? {}))
                  .map((p) => [p, fc.anything()]),
              ),
              { requiredKeys: [] },
            ),
          ),
          (tool, args) => check(tool, args),
        ),
        { numRuns: 150 },
      );
      // Still serving: a valid call works, and the reconciliation tools answer.
      expect((await client.listTools()).tools).toHaveLength(tools.length);
      const listed = await callSafely(client, 'list_tasks', {});
      expect(listed.kind).toBe('result');
      // Nothing reached Object.prototype.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.keys(Object.prototype)).toEqual([]);
      // Cancel whatever the fuzz started, then shut down cleanly.
      const running = app.taskManager.list(['running']);
      await Promise.all(running.map((t) => app.taskManager.cancel(t.task_id)));
      expect(app.taskManager.runningCount).toBe(0);
      const unexpected = logger.at('error').filter((e) => !/dropped|could not flush/.test(e.message));
      expect({
        name,
        unexpected: unexpected.map((e) => `${e.message} ${String(e.meta.error ?? '')}`),
      }).toEqual({ name, unexpected: [] });
      await client.close();
      await app.close({ timeoutMs: 0 });
      // Round 0 warms up the sleeper: measure from there.
      if (round === 0) baseline = heapMb();
    }
    const after = heapMb();
    figure('tool fuzz', {
      servers: servers.map(([n]) => n),
      calls,
      ...byKind,
      heap_growth_mb: +(after - baseline).toFixed(1),
    });
    expect(after - baseline).toBeLessThan(20);
    expect(byKind.result).toBeGreaterThan(0);
    expect(byKind.tool_error).toBeGreaterThan(0);
  }, 90_000);
});
