/**
 * Issue 32's "Done when", as one navigation run each: with the OpenTelemetry SDK's in-memory
 * exporters registered, a `navigate_to` call with the client's `traceparent` in `params._meta`
 * produces the `tools/call navigate_to` server span under the client's parent, a `task navigate_to`
 * span linked to it with progress and trigger events and its terminal status, a `send <type>` span
 * per delivery whose trace context the app's receiver continues (`process <type>`), and the kit's
 * and the conventions' metrics with the run's counts — on the 2025-11-25 leg (v1 SDK client), on
 * the 2026-07-28 leg (v2 SDK client) and with events over MQTT 5 (Mosquitto).
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { type EventTransport, type TaskEvent } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { KIT_ATTRIBUTES, KIT_METRICS, SEMCONV_ATTRIBUTES } from '@robot-mcp-kit/core/telemetry';
import { MqttEventSource, MqttEventTransport } from '@robot-mcp-kit/brokers';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { bootstrap } from '@robot-mcp-kit/server';
import { NavigationServer } from '../../examples/navigation/src/navigation.server.js';
import { clientTraceparent, TestTelemetry } from '../support/otel.js';
import { until } from '../support/until.js';

const SECRET = 'observability-test-secret-0123456789abcdef';
const MQTT_URL = 'mqtt://127.0.0.1:1883';
const LIMIT_MS = 45_000;

// a fresh SDK per run, so that each run's metrics count that run only
let otel: TestTelemetry;
const cleanups: (() => Promise<unknown>)[] = [];
beforeEach(() => {
  otel = TestTelemetry.register();
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
  await otel.disable();
});

/** The app's side: a receiver that keeps what reached `onEvent`. */
function appReceiver(events: TaskEvent[]): EventReceiver {
  return createEventReceiver({
    secrets: { navigation: SECRET },
    onEvent: (event) => {
      events.push(event);
    },
  });
}

async function httpReceiver(events: TaskEvent[]): Promise<string> {
  const receiver = appReceiver(events);
  const server: Server = createServer(receiver.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/agent/events`;
}

async function mqttReceiver(events: TaskEvent[], topicPrefix: string): Promise<void> {
  const source = new MqttEventSource({
    url: MQTT_URL,
    receiver: appReceiver(events),
    clientId: `app-${randomUUID().slice(0, 8)}`,
    topicPrefix,
    sessionExpiryS: 60,
  });
  await source.start();
  cleanups.push(() => source.close());
}

/** The navigation example, fast: 10 m/s, a 50 ms tick, no closed door. */
async function serveNavigation(eventTransport: EventTransport): Promise<string> {
  const app = bootstrap(NavigationServer, {
    env: {},
    logger: new MemoryLogger(),
    instance: new NavigationServer({ speedMps: 10, tickMs: 50, closedDoors: [], start: 'dock' }),
    eventTransport,
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close({ timeoutMs: 2000 }));
  return info.url!;
}

const NAVIGATE = (meta: { traceparent: string }) => ({
  name: 'navigate_to',
  arguments: { goal: 'lobby', triggers: [{ type: 'eta_below', seconds: 0.3 }] },
  _meta: { traceparent: meta.traceparent },
});

function taskIdOf(result: unknown): string {
  const structured = (result as { structuredContent?: { task_id?: string } }).structuredContent;
  expect(typeof structured?.task_id).toBe('string');
  return structured!.task_id!;
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** Waits for the run's terminal event at the app, its `process` and its `send` span. */
async function runFinished(events: TaskEvent[], taskId: string): Promise<void> {
  await until(
    () => events.some((e) => e.task_id === taskId && e.type === 'task_done'),
    'task_done reached the app',
    LIMIT_MS,
  );
  await until(() => otel.finished('process task_done').length > 0, 'the receiver span ended', LIMIT_MS);
  // over HTTP the delivery span ends with the answer, after the receiver's span
  await until(() => otel.finished('send task_done').length > 0, 'the delivery span ended', LIMIT_MS);
}

/** Everything the issue asks one run to show, for the task `taskId` started under `parent`. */
async function expectTraced(
  events: TaskEvent[],
  taskId: string,
  parent: { traceId: string; spanId: string },
): Promise<void> {
  const [server] = otel.finished('tools/call navigate_to');
  expect(server).toBeDefined();
  expect(server!.spanContext().traceId).toBe(parent.traceId);
  expect(parentOf(server!)).toBe(parent.spanId);

  const [task] = otel.finished('task navigate_to');
  expect(task).toBeDefined();
  expect(task!.attributes[KIT_ATTRIBUTES.taskId]).toBe(taskId);
  expect(task!.links.map((link) => link.context.spanId)).toContain(server!.spanContext().spanId);
  const spanEvents = task!.events.map((event) => event.name);
  expect(spanEvents).toContain('task.progress');
  expect(spanEvents).toContain('task.trigger_fired');
  expect(task!.status.code).toBe(SpanStatusCode.OK);

  const mine = events.filter((e) => e.task_id === taskId);
  const sends = otel
    .finished()
    .filter((s) => s.name.startsWith('send ') && s.attributes[KIT_ATTRIBUTES.taskId] === taskId);
  expect(new Set(sends.map((s) => s.name))).toEqual(
    new Set(['send progress', 'send trigger_fired', 'send task_done']),
  );
  for (const send of sends) {
    expect(send.spanContext().traceId).toBe(task!.spanContext().traceId);
    expect(parentOf(send)).toBe(task!.spanContext().spanId);
  }
  const sendIds = new Set(sends.map((s) => s.spanContext().spanId));
  const processed = otel.finished().filter((s) => s.name.startsWith('process '));
  const continued = processed.filter((s) => sendIds.has(parentOf(s) ?? ''));
  expect(continued.length).toBe(mine.length);

  expect(
    await otel.sum(KIT_METRICS.tasksRunning.name, { [SEMCONV_ATTRIBUTES.genAiToolName]: 'navigate_to' }),
  ).toBe(0);
  expect(
    await otel.histogramCount(KIT_METRICS.taskDuration.name, {
      [SEMCONV_ATTRIBUTES.genAiToolName]: 'navigate_to',
      [KIT_ATTRIBUTES.taskState]: 'succeeded',
    }),
  ).toBe(1);
  expect(await otel.sum(KIT_METRICS.deliveryAttempts.name)).toBe(sends.length);
  expect(sends.length).toBeGreaterThanOrEqual(mine.length);
  expect(
    await otel.histogramCount('mcp.server.operation.duration', {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'navigate_to',
    }),
  ).toBe(1);
}

describe('one navigation run, traced end to end', () => {
  it('2025-11-25 (v1 SDK client), events over HTTP', async () => {
    const events: TaskEvent[] = [];
    const url = await httpReceiver(events);
    const mcpUrl = await serveNavigation(
      new HttpEventTransport({ url, secret: SECRET, serverName: 'navigation' }),
    );
    const client = new Client({ name: 'planner', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    cleanups.push(() => client.close());
    const parent = clientTraceparent();
    const taskId = taskIdOf(await client.callTool(NAVIGATE(parent)));
    await runFinished(events, taskId);
    await expectTraced(events, taskId, parent);
  });

  it('2026-07-28 (v2 SDK client), events over HTTP', async () => {
    const events: TaskEvent[] = [];
    const url = await httpReceiver(events);
    const mcpUrl = await serveNavigation(
      new HttpEventTransport({ url, secret: SECRET, serverName: 'navigation' }),
    );
    const client = new ModernClient(
      { name: 'planner', version: '2' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernTransport(new URL(mcpUrl)));
    cleanups.push(() => client.close());
    const parent = clientTraceparent();
    const taskId = taskIdOf(await client.callTool(NAVIGATE(parent)));
    await runFinished(events, taskId);
    await expectTraced(events, taskId, parent);
    const [server] = otel.finished('tools/call navigate_to');
    expect(server!.attributes['mcp.protocol.version']).toBe('2026-07-28');
  });

  it('events over MQTT 5: the source continues the delivery spans', async () => {
    const events: TaskEvent[] = [];
    const topicPrefix = `rmk-otel-${randomUUID().slice(0, 8)}`;
    await mqttReceiver(events, topicPrefix);
    const mcpUrl = await serveNavigation(
      new MqttEventTransport({ url: MQTT_URL, secret: SECRET, serverName: 'navigation', topicPrefix }),
    );
    const client = new Client({ name: 'planner', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    cleanups.push(() => client.close());
    const parent = clientTraceparent();
    const taskId = taskIdOf(await client.callTool(NAVIGATE(parent)));
    await runFinished(events, taskId);
    await expectTraced(events, taskId, parent);
  });
});
