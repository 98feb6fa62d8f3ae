import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { interleave, perOpSide } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

const VERSION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
/** Polls of one task at most before the round trip counts as broken. */
const MAX_POLLS = 1000;

/**
 * One JSON-RPC request of MCP 2026-07-28 over HTTP with the tasks extension declared, written from
 * the SEP-2663 text (no SDK client speaks the extension yet): envelope in `_meta`, the
 * MCP-Protocol-Version / Mcp-Method / Mcp-Name headers.
 */
async function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
  name?: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  const json = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data:')) ?? '').slice(5);
  const reply = JSON.parse(json) as { result?: Record<string, unknown>; error?: unknown };
  if (!reply.result) throw new BenchCheckError(`${method} answered ${text.slice(0, 300)}`);
  return reply.result;
}

/** SEP-2663: tools/call → resultType "task", then tasks/get until the result is inlined. */
async function modernTaskRoundTrip(url: string): Promise<void> {
  const created = await modernRequest(
    url,
    'tools/call',
    { name: 'move_now', arguments: { distance_m: 1 } },
    'move_now',
  );
  if (created.resultType !== 'task')
    throw new BenchCheckError(`no task: ${JSON.stringify(created).slice(0, 300)}`);
  const taskId = created.taskId as string;
  for (let poll = 0; poll < MAX_POLLS; poll += 1) {
    const task = await modernRequest(url, 'tasks/get', { taskId }, taskId);
    if (task.status === 'completed' && task.result) return;
    if (task.status !== 'working') throw new BenchCheckError(`task ended ${String(task.status)}`);
  }
  throw new BenchCheckError(`task ${taskId} still working after ${MAX_POLLS} polls`);
}

/** SEP-1686: tools/call with `task`, then tasks/get until completed, then tasks/result. */
async function legacyTaskRoundTrip(client: Client): Promise<void> {
  const { task } = await client.request(
    {
      method: 'tools/call',
      params: { name: 'move_now', arguments: { distance_m: 1 }, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  );
  for (let poll = 0; poll < MAX_POLLS; poll += 1) {
    const current = await client.experimental.tasks.getTask(task.taskId);
    if (current.status === 'completed') {
      await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      return;
    }
    if (current.status !== 'working') throw new BenchCheckError(`task ended ${current.status}`);
  }
  throw new BenchCheckError(`task ${task.taskId} still working after ${MAX_POLLS} polls`);
}

/**
 * The two protocol generations of one server on one streamable-HTTP listener: a plain tools/call
 * (v2 SDK client, 2026-07-28, no session, vs v1 SDK client, 2025-11-25, session) and a task round
 * trip (SEP-2663 vs SEP-1686). Informational rows: they show what a 2026 client pays per request
 * (a server instance per request, no session) against the 2025 session, not a target.
 */
export async function mcpEraBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('MCP 2026-07-28 vs 2025-11-25 on one streamable-HTTP listener');
  const plan = sized(ctx, { warmupRounds: 1, rounds: 2, ops: 20 }, { warmupRounds: 2, rounds: 12, ops: 150 });
  const app = bootstrap(BenchServer, {
    eventTransport: new AckEventTransport(),
    env: {},
    logger: silentLogger,
  });
  const { url } = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  const modern = new ModernClient(
    { name: 'bench', version: '1' },
    { versionNegotiation: { mode: { pin: VERSION } } },
  );
  await modern.connect(new ModernTransport(new URL(url!)));
  const legacy = new Client({ name: 'bench', version: '1' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(url!)));
  await legacy.listTools();
  const echo = { name: 'echo', arguments: { text: 'hello', count: 2 } };
  const check = (result: unknown) => {
    if ((result as { isError?: boolean }).isError)
      throw new BenchCheckError(`echo failed: ${JSON.stringify(result)}`);
  };
  try {
    const calls = await interleave(
      perOpSide('2026', plan.ops, async () => check(await modern.callTool(echo))),
      perOpSide('2025', plan.ops, async () => check(await legacy.callTool(echo))),
      plan,
    );
    const tasks = await interleave(
      perOpSide('sep-2663', plan.ops, () => modernTaskRoundTrip(url!)),
      perOpSide('sep-1686', plan.ops, () => legacyTaskRoundTrip(legacy)),
      plan,
    );
    return [
      makeRow(
        {
          id: 'mcp2026-tools-call-http',
          scenario: 'tools/call over streamable HTTP, MCP 2026-07-28 (v2 SDK client)',
          baseline: 'the same call from a 2025-11-25 session (v1 SDK client)',
          unit: 'us',
          notes: 'informational: 2026 builds a server instance per request',
        },
        calls.subject,
        calls.baseline,
        calls.cpu,
      ),
      makeRow(
        {
          id: 'mcp2026-task-round-trip-http',
          scenario: 'task round trip (create, poll to completed), SEP-2663 over HTTP',
          baseline: 'SEP-1686 from a 2025-11-25 session (create, tasks/get, tasks/result)',
          unit: 'us',
          notes: 'informational: SEP-2663 inlines the result in tasks/get (one request fewer)',
        },
        tasks.subject,
        tasks.baseline,
        tasks.cpu,
      ),
    ];
  } finally {
    await modern.close();
    await legacy.close();
    await app.close({ timeoutMs: 1000 });
  }
}
