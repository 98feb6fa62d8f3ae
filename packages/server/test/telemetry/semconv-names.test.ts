import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { EXECUTE_TOOL, MCP_ATTR, MCP_METRIC } from '../../src/telemetry/mcp-semconv.names.js';
import { until } from '../fixtures/harness.js';
import { RoverServer } from '../fixtures/rover.server.js';
import { type OtelHarness, registerOtel } from './otel-sdk.harness.js';

interface Pinned {
  readonly attributes: Record<string, string>;
  readonly metrics: Record<string, string>;
  readonly values: Record<string, string[]>;
}

/** The pinned copy of the conventions' MCP attribute and metric names. */
const pinned = JSON.parse(
  readFileSync(new URL('./mcp-semconv.pinned.json', import.meta.url), 'utf8'),
) as Pinned;
/** The kit's own namespace: names the conventions do not have (tasks, delivery) live under it. */
const KIT_NAMESPACE = 'robot_mcp_kit.';
const allowed = (name: string, list: Record<string, string>): boolean =>
  Object.hasOwn(list, name) || name.startsWith(KIT_NAMESPACE);
const constants = semconv as unknown as Record<string, unknown>;

describe('the pinned copy of the MCP conventions', () => {
  it('matches the installed @opentelemetry/semantic-conventions constants', () => {
    for (const [name, constant] of [
      ...Object.entries(pinned.attributes),
      ...Object.entries(pinned.metrics),
    ]) {
      expect([constant, constants[constant]]).toEqual([constant, name]);
    }
    expect(constants.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL).toBe(EXECUTE_TOOL);
    expect(pinned.values['gen_ai.operation.name']).toEqual([EXECUTE_TOOL]);
    expect([constants.NETWORK_TRANSPORT_VALUE_PIPE, constants.NETWORK_TRANSPORT_VALUE_TCP]).toEqual(
      pinned.values['network.transport'],
    );
  });

  it("holds every name of the server's names file", () => {
    for (const name of Object.values(MCP_ATTR))
      expect([name, allowed(name, pinned.attributes)]).toEqual([name, true]);
    for (const name of Object.values(MCP_METRIC))
      expect([name, allowed(name, pinned.metrics)]).toEqual([name, true]);
  });
});

describe('what a run emits', () => {
  let otel: OtelHarness;
  beforeAll(() => {
    otel = registerOtel();
  });
  afterAll(async () => {
    await otel.shutdown();
  });

  it('uses only pinned names or the kit namespace, on spans, links, events and metrics', async () => {
    const app = bootstrap(RoverServer, {
      env: {},
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
    });
    const { url } = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'names', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    const modern = new ModernClient(
      { name: 'names', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new ModernTransport(new URL(url!)));
    try {
      await client.listTools();
      await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      await client.callTool({ name: 'explode', arguments: {} });
      await client.callTool({ name: 'nope', arguments: {} }).catch(() => undefined);
      const started = await client.callTool({ name: 'drive', arguments: { distance_m: 1 } });
      const taskId = (started.structuredContent as { task_id: string }).task_id;
      await client.callTool({ name: 'get_task', arguments: { task_id: taskId } });
      await client.listResources().catch(() => undefined);
      await client.readResource({ uri: `tasks://${taskId}` }).catch(() => undefined);
      await client.callTool({ name: 'cancel_task', arguments: { task_id: taskId } });
      await modern.callTool({ name: 'echo', arguments: { text: 'y' } });
      await modern.listTools();
    } finally {
      await client.close();
      await modern.close();
      await app.close({ timeoutMs: 500 });
    }
    await until(async () => (await otel.metricNames()).includes(MCP_METRIC.serverSessionDuration));

    const spans = otel.spans.getFinishedSpans();
    const read = spans.find((span) => span.name === 'resources/read');
    expect(read?.attributes[MCP_ATTR.resourceUri]).toMatch(/^tasks:\/\//);
    const spanNames = spans.flatMap((span) => [
      ...Object.keys(span.attributes),
      ...span.links.flatMap((link) => Object.keys(link.attributes ?? {})),
      ...span.events.flatMap((event) => Object.keys(event.attributes ?? {})),
    ]);
    const metrics = await otel.collect();
    const metricAttributes = metrics.flatMap((metric) =>
      metric.dataPoints.flatMap((point) => Object.keys(point.attributes)),
    );
    expect(new Set(spanNames).size).toBeGreaterThan(5);
    expect(
      [...new Set([...spanNames, ...metricAttributes])].filter((name) => !allowed(name, pinned.attributes)),
    ).toEqual([]);
    expect(
      metrics.map((metric) => metric.descriptor.name).filter((name) => !allowed(name, pinned.metrics)),
    ).toEqual([]);
    expect(metrics.map((metric) => metric.descriptor.name)).toEqual(
      expect.arrayContaining([MCP_METRIC.serverOperationDuration, MCP_METRIC.serverSessionDuration]),
    );
  });
});
