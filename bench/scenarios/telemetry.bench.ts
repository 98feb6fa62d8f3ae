import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  context,
  createNoopMeter,
  metrics,
  propagation,
  ProxyTracerProvider,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, type SpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { type BenchSide, interleave, perOpSide, type RoundPlan } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

const ECHO = { name: 'echo', arguments: { text: 'hello robot', count: 3 } };
type Plan = RoundPlan & { ops: number };

/** What one side registers with the OpenTelemetry API for its rounds (and undoes after them). */
interface Registration {
  register(): void;
  unregister(): Promise<void>;
}

const NOTHING: Registration = { register: () => undefined, unregister: () => Promise.resolve() };

/** The API's own no-op providers, registered: a tracer provider with no delegate, no-op meters. */
const NOOP: Registration = {
  register() {
    trace.setGlobalTracerProvider(new ProxyTracerProvider());
    metrics.setGlobalMeterProvider({ getMeter: () => createNoopMeter() });
  },
  async unregister() {
    trace.disable();
    metrics.disable();
  },
};

/** Drops every span (the SDK does all its work; nothing is kept or sent). */
const discard: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};

class CollectOnDemand extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The Node SDK's pieces as `otel.mjs` registers them: context manager, W3C propagator, providers. */
function sdkRegistration(): Registration {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(discard)] });
  const meterProvider = new MeterProvider({ readers: [new CollectOnDemand()] });
  return {
    register() {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(tracerProvider);
      metrics.setGlobalMeterProvider(meterProvider);
    },
    async unregister() {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

interface Served {
  readonly app: RobotMcpApp;
  readonly client: Client;
  readonly registration: Registration;
}

/** A kit app on streamable HTTP built while `registration` is in place (the meter is taken then). */
async function serve(registration: Registration): Promise<Served> {
  registration.register();
  try {
    const app = bootstrap(BenchServer, {
      eventTransport: new AckEventTransport(),
      env: {},
      logger: silentLogger,
    });
    const { url } = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'bench-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url ?? '')));
    const result = (await client.callTool(ECHO)) as CallToolResult;
    if (result.isError) throw new BenchCheckError(`echo answered ${JSON.stringify(result).slice(0, 300)}`);
    return { app, client, registration };
  } finally {
    await registration.unregister();
  }
}

/** One side: its registration is in place for its rounds only (the other side runs without it). */
function side(name: string, served: Served, plan: Plan): BenchSide {
  const calls = perOpSide(name, plan.ops, () => served.client.callTool(ECHO));
  return {
    name,
    async round() {
      served.registration.register();
      try {
        return await calls.round();
      } finally {
        await served.registration.unregister();
      }
    },
    cpuOfLastRound: () => calls.cpuOfLastRound?.() ?? 0,
  };
}

async function close(served: Served): Promise<void> {
  await served.client.close();
  await served.app.close({ timeoutMs: 1000 });
}

/**
 * tools/call over streamable HTTP on loopback, with the kit's OpenTelemetry instrumentation: no
 * SDK registered (the API's defaults) against the API's no-op providers registered (target
 * <= 1.02x), and, for information, against the Node SDK's pieces registered (spans built and
 * dropped, metrics recorded).
 */
export async function telemetryBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const plan = sized<Plan>(
    ctx,
    { warmupRounds: 1, rounds: 6, ops: 60 },
    { warmupRounds: 3, rounds: 16, ops: 200 },
  );
  ctx.log('telemetry: tools/call with no SDK, a registered no-op API, the SDK');
  const none = await serve(NOTHING);
  const noop = await serve(NOOP);
  const sdk = await serve(sdkRegistration());
  try {
    const rows: BenchRow[] = [];
    let s = await interleave(side('registered no-op', noop, plan), side('no SDK', none, plan), plan);
    rows.push(
      makeRow(
        {
          id: 'otel-noop',
          scenario: '@Tool call, streamable HTTP, the API with registered no-op tracer and meter providers',
          baseline: 'the same with nothing registered (no SDK)',
          unit: 'us',
          target: { op: '<=', value: 1.02 },
        },
        s.subject,
        s.baseline,
        s.cpu,
      ),
    );
    s = await interleave(side('sdk', sdk, plan), side('no SDK', none, plan), plan);
    rows.push(
      makeRow(
        {
          id: 'otel-sdk',
          scenario: '@Tool call, streamable HTTP, with the OpenTelemetry SDK registered (spans dropped)',
          baseline: 'the same with nothing registered (no SDK)',
          unit: 'us',
          notes: 'informational: the cost of recording a server span and the duration metric per call',
        },
        s.subject,
        s.baseline,
        s.cpu,
      ),
    );
    return rows;
  } finally {
    await close(none);
    await close(noop);
    await close(sdk);
  }
}
