import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callJson, ChildServers } from '../../../test/support/child-server.js';
import { waitFor } from '../../../test/support/until.js';

// The built navigation server (examples/navigation/dist; `npm run build` first) started the way
// this example's README says: `node --import ./otel.mjs ../navigation/dist/main.js`.
const here = dirname(fileURLToPath(import.meta.url));
const servers = new ChildServers(
  resolve(here, '../../navigation/dist/main.js'),
  { NAV_SPEED_MPS: '2', NAV_TICK_MS: '20', OTEL_PROMETHEUS_PORT: '0' },
  ['--import', resolve(here, '../otel.mjs')],
);

beforeAll(() => servers.assertBuilt());
afterEach(() => servers.cleanup());

interface SpanLine {
  otel_span: string;
  trace_id: string;
  parent_span_id?: string;
  attributes: Record<string, unknown>;
}

/** The spans otel.mjs wrote on stderr (one JSON line each). */
function spansIn(stderr: string): SpanLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{"otel_span"'))
    .map((line) => JSON.parse(line) as SpanLine);
}

function metricsUrl(stderr: () => string): Promise<string> {
  return waitFor(
    'otel.mjs to log its Prometheus endpoint',
    () => /prometheus metrics on (http:\S+)/.exec(stderr())?.[1],
  );
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of the first series of `text` whose line starts with `metric{` and holds every label. */
function seriesValue(text: string, metric: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${metric}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('observability example: the Node SDK via --import, Prometheus scrape endpoint', () => {
  it('a navigation run over streamable HTTP shows up as server spans and scraped MCP metrics', async () => {
    const { url, stderr } = await servers.startHttp('streamable-http');
    const metrics = await metricsUrl(stderr);
    const client = servers.track(new Client({ name: 'observer', version: '1' }));
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    const started = await client.callTool({
      name: 'navigate_to',
      arguments: { goal: 'lobby' },
      _meta: { traceparent: `00-${traceId}-${parentSpanId}-01` },
    });
    const taskId = (started.structuredContent as { task_id: string }).task_id;
    let polls = 0;
    await waitFor(
      'the navigation task to end',
      async () => {
        polls += 1;
        return (await callJson(client, 'get_task', { task_id: taskId })).state === 'running'
          ? undefined
          : true;
      },
      60_000,
    );

    // Span lines reach the pipe as the calls end; wait until the last poll's is read.
    const getTaskSpans = () => spansIn(stderr()).filter((span) => span.otel_span === 'tools/call get_task');
    await waitFor('every get_task span on stderr', () => (getTaskSpans().length >= polls ? true : undefined));
    const [navigate] = spansIn(stderr()).filter((span) => span.otel_span === 'tools/call navigate_to');
    expect(navigate).toMatchObject({
      trace_id: traceId,
      parent_span_id: parentSpanId,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'navigate_to',
        'network.transport': 'tcp',
        'mcp.protocol.version': '2025-11-25',
      },
    });
    expect(getTaskSpans()).toHaveLength(polls);

    const text = await scrape(metrics);
    const count = 'mcp_server_operation_duration_count';
    expect(seriesValue(text, count, { mcp_method_name: 'tools/call', gen_ai_tool_name: 'navigate_to' })).toBe(
      1,
    );
    expect(seriesValue(text, count, { mcp_method_name: 'tools/call', gen_ai_tool_name: 'get_task' })).toBe(
      polls,
    );
    expect(seriesValue(text, count, { mcp_method_name: 'initialize' })).toBe(1);
    expect(text).toContain('# TYPE mcp_server_operation_duration histogram');

    await transport.terminateSession(); // the session ends: its duration is recorded
    await waitFor('the session duration to be scraped', async () =>
      seriesValue(await scrape(metrics), 'mcp_server_session_duration_count', {
        network_transport: 'tcp',
      }) === 1
        ? true
        : undefined,
    );
  });

  it('over stdio the same server spans say network.transport pipe', async () => {
    const { client, stderr, closeAndWait } = await servers.connectStdio({ MCP_TRANSPORT: 'stdio' });
    const metrics = await metricsUrl(stderr);
    await callJson(client, 'get_pose');
    await waitFor('the get_pose span on stderr', () =>
      spansIn(stderr()).find((span) => span.otel_span === 'tools/call get_pose'),
    );
    const [span] = spansIn(stderr()).filter((s) => s.otel_span === 'tools/call get_pose');
    expect(span!.attributes).toMatchObject({
      'network.transport': 'pipe',
      'mcp.protocol.version': '2025-11-25',
    });
    expect(span!.attributes).not.toHaveProperty('mcp.session.id');
    const text = await scrape(metrics);
    expect(
      seriesValue(text, 'mcp_server_operation_duration_count', {
        gen_ai_tool_name: 'get_pose',
        network_transport: 'pipe',
      }),
    ).toBe(1);
    expect(await closeAndWait()).toBe(true);
  });
});
