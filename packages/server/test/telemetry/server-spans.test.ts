import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, type RobotMcpApp, TaskError, Tool } from '@robot-mcp-kit/server';
import { until } from '../fixtures/harness.js';
import { RoverServer } from '../fixtures/rover.server.js';
import { clientTraceparent, type OtelHarness, registerOtel } from './otel-sdk.harness.js';

/** Tools that show what a handler sees: the active span, and a kit error code. */
@CapabilityServer({ name: 'traced', version: '1.0.0' })
class TracedServer {
  @Tool({ name: 'active_span', description: 'The span id active in the tool body' })
  activeSpan(): string {
    return trace.getActiveSpan()?.spanContext().spanId ?? 'none';
  }

  @Tool({ name: 'jam', description: 'Fails with a kit error code' })
  jam(): string {
    throw new TaskError('ARM_JAMMED', 'The arm is jammed.');
  }
}

let otel: OtelHarness;
beforeAll(() => {
  otel = registerOtel();
});
afterAll(async () => {
  await otel.shutdown();
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  otel.spans.reset();
});

async function serve(server: new () => object): Promise<{ app: RobotMcpApp; url: string }> {
  const app = bootstrap(server, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return { app, url: info.url! };
}

async function legacyClient(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'legacy', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

async function modernClient(url: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'modern', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.type === 'text' ? (content[0].text ?? '') : '';
}

describe('server spans (2025-11-25 over streamable HTTP, v1 SDK client)', () => {
  it('names tools/call by its tool, takes the parent from params._meta and sets the conventions attributes', async () => {
    const { url } = await serve(RoverServer);
    const { client, transport } = await legacyClient(url);
    const parent = clientTraceparent();
    await client.callTool({
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { traceparent: parent.traceparent },
    });

    const [span] = otel.spansNamed('tools/call echo');
    expect(span).toBeDefined();
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(parent.traceId);
    expect(span!.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(span!.parentSpanContext?.isRemote).toBe(true);
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': expect.any(String),
      'mcp.session.id': transport.sessionId,
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
    });
    // initialize has its own span (no target), in a trace of its own (the client sent no parent).
    const [initialize] = otel.spansNamed('initialize');
    expect(initialize!.attributes['mcp.method.name']).toBe('initialize');
    expect(initialize!.spanContext().traceId).not.toBe(parent.traceId);
  });

  it('runs the handler with the server span active (what the task manager links a task to)', async () => {
    const { url } = await serve(TracedServer);
    const { client } = await legacyClient(url);
    const seen = textOf(await client.callTool({ name: 'active_span', arguments: {} }));
    const [span] = otel.spansNamed('tools/call active_span');
    expect(seen).toBe(span!.spanContext().spanId);
  });

  it('sets error.type and ERROR status on tool errors and JSON-RPC errors', async () => {
    const { url } = await serve(TracedServer);
    const { client } = await legacyClient(url);
    expect((await client.callTool({ name: 'jam', arguments: {} })).isError).toBe(true);
    const [jam] = otel.spansNamed('tools/call jam');
    expect(jam!.status.code).toBe(SpanStatusCode.ERROR);
    expect(jam!.attributes['error.type']).toBe('ARM_JAMMED');

    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/not found/);
    const [unknown] = otel.spansNamed('tools/call no_such_tool');
    expect(unknown!.status.code).toBe(SpanStatusCode.ERROR);
    expect(unknown!.attributes['error.type']).toBe('-32602');
    expect(unknown!.attributes['rpc.response.status_code']).toBe('-32602');
  });

  it('an isError result without a kit code is a tool_error', async () => {
    const { url } = await serve(RoverServer);
    const { client } = await legacyClient(url);
    expect((await client.callTool({ name: 'explode', arguments: {} })).isError).toBe(true);
    const [span] = otel.spansNamed('tools/call explode');
    expect(span!.attributes['error.type']).toBe('tool_error');
  });

  it('links get_task to the task span the task manager reports (traceContextOf)', async () => {
    const { app, url } = await serve(RoverServer);
    const taskSpan = trace.getTracer('test').startSpan('task');
    taskSpan.end();
    // The core's task telemetry answers this; here the contract alone is exercised.
    Object.assign(app.taskManager, {
      traceContextOf: (taskId: string) => (taskId === started ? taskSpan.spanContext() : undefined),
    });
    const { client } = await legacyClient(url);
    const started = (
      JSON.parse(textOf(await client.callTool({ name: 'drive', arguments: { distance_m: 1 } }))) as {
        task_id: string;
      }
    ).task_id;
    await client.callTool({ name: 'get_task', arguments: { task_id: started } });
    const [span] = otel.spansNamed('tools/call get_task');
    expect(span!.links.map((link) => link.context.spanId)).toEqual([taskSpan.spanContext().spanId]);
    await client.callTool({ name: 'cancel_task', arguments: { task_id: started } });
    expect(otel.spansNamed('tools/call cancel_task')[0]!.links).toHaveLength(1);
  });
});

describe('server spans (2026-07-28, v2 SDK client)', () => {
  it('names, parents and attributes a tools/call on the session-less leg', async () => {
    const { url } = await serve(RoverServer);
    const modern = await modernClient(url);
    const parent = clientTraceparent();
    await modern.callTool({
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { traceparent: parent.traceparent },
    });
    const [span] = otel.spansNamed('tools/call echo');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(span!.spanContext().traceId).toBe(parent.traceId);
    expect(span!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': expect.any(String),
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
    });
  });

  it('runs the handler in the span and marks tool errors', async () => {
    const { url } = await serve(TracedServer);
    const modern = await modernClient(url);
    const seen = textOf(await modern.callTool({ name: 'active_span', arguments: {} }));
    expect(seen).toBe(otel.spansNamed('tools/call active_span')[0]!.spanContext().spanId);
    await modern.callTool({ name: 'jam', arguments: {} });
    const [jam] = otel.spansNamed('tools/call jam');
    expect(jam!.attributes['error.type']).toBe('ARM_JAMMED');
    expect(jam!.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('MCP metrics', () => {
  it('counts mcp.server.operation.duration per method, tool and error, and one session duration per closed session', async () => {
    // The meter provider is shared by the whole file: counts are taken as differences.
    const { url } = await serve(TracedServer);
    await otel.collect();
    const before = {
      legacy: countOf(otel, { 'gen_ai.tool.name': 'active_span', 'mcp.protocol.version': '2025-11-25' }),
      modern: countOf(otel, { 'gen_ai.tool.name': 'active_span', 'mcp.protocol.version': '2026-07-28' }),
      jam: countOf(otel, { 'gen_ai.tool.name': 'jam', 'error.type': 'ARM_JAMMED' }),
      sessions: countOf(otel, {}, 'mcp.server.session.duration'),
    };
    const { client, transport } = await legacyClient(url);
    for (let i = 0; i < 3; i += 1) await client.callTool({ name: 'active_span', arguments: {} });
    await client.callTool({ name: 'jam', arguments: {} });
    const modern = await modernClient(url);
    await modern.callTool({ name: 'active_span', arguments: {} });
    await otel.collect();
    expect(countOf(otel, { 'gen_ai.tool.name': 'active_span', 'mcp.protocol.version': '2025-11-25' })).toBe(
      before.legacy + 3,
    );
    expect(countOf(otel, { 'gen_ai.tool.name': 'active_span', 'mcp.protocol.version': '2026-07-28' })).toBe(
      before.modern + 1,
    );
    expect(countOf(otel, { 'gen_ai.tool.name': 'jam', 'error.type': 'ARM_JAMMED' })).toBe(before.jam + 1);
    for (const point of otel.points('mcp.server.operation.duration')) {
      // High-cardinality attributes stay off the metric; every point has a method and a transport.
      expect(point.attributes).not.toHaveProperty('mcp.session.id');
      expect(point.attributes).not.toHaveProperty('jsonrpc.request.id');
      expect(point.attributes['mcp.method.name']).toEqual(expect.any(String));
      expect(point.attributes['network.transport']).toBe('tcp');
    }

    await transport.terminateSession(); // DELETE: the session ends (a bare close leaves it to idle out)
    await until(async () => {
      await otel.collect();
      return countOf(otel, {}, 'mcp.server.session.duration') > before.sessions;
    }, 'the closed session to be recorded');
    expect(countOf(otel, {}, 'mcp.server.session.duration')).toBe(before.sessions + 1);
    for (const point of otel.points('mcp.server.session.duration')) {
      expect(point.attributes).toEqual({ 'network.transport': 'tcp', 'mcp.protocol.version': '2025-11-25' });
    }
  });
});

/** The count of the histogram's points whose attributes include `match`. */
function countOf(
  harness: OtelHarness,
  match: Record<string, string>,
  metric = 'mcp.server.operation.duration',
): number {
  return harness
    .points(metric)
    .filter((p) => Object.entries(match).every(([key, value]) => p.attributes[key] === value))
    .reduce((n, p) => n + p.value.count, 0);
}
