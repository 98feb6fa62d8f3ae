/**
 * The OpenTelemetry SDK for tests: an in-memory span exporter behind a SimpleSpanProcessor on a
 * NodeTracerProvider (AsyncLocalStorage context manager, W3C trace-context propagator) and a
 * MeterProvider with a manual reader (`collect()`, no timers). Register once per test file and
 * `disable()` in afterAll: the global API then goes back to its no-ops.
 *
 * The globals are set through the `@opentelemetry/api` copy the kit's packages resolve (see
 * {@link kitApi}), not through the SDK's own copy.
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';
import { fileURLToPath } from 'node:url';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * The OpenTelemetry API as the kit's packages load it (resolved from packages/core). The SDK 2.x
 * line peers `@opentelemetry/api` `<1.10.0` while the kit asks for `^1.10.0`, so npm installs two
 * copies, and a 1.10 API ignores globals registered by a 1.9 one (the API's version check): an
 * app registering the SDK the usual way would see none of the kit's telemetry. Registering through
 * the kit's copy works (a 1.9 reader accepts 1.10 globals). With a single copy this is that copy.
 */
const kitApiPath = createRequire(
  fileURLToPath(new URL('../../packages/core/package.json', import.meta.url)),
).resolve('@opentelemetry/api');
// imported (not required), so that it loads in the test's module registry and global object
const kitApi = (await import(kitApiPath)) as typeof OtelApi;
const { context, metrics, propagation, trace } = kitApi;

/** A reader collected on demand. */
class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export class TestTelemetry {
  readonly spans = new InMemorySpanExporter();
  private readonly tracerProvider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(this.spans)],
  });
  private readonly reader = new ManualReader();
  private readonly meterProvider = new MeterProvider({ readers: [this.reader] });

  /** Registers the SDK globally (tracer and meter providers, context manager, W3C propagator). */
  static register(): TestTelemetry {
    const telemetry = new TestTelemetry();
    trace.setGlobalTracerProvider(telemetry.tracerProvider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    metrics.setGlobalMeterProvider(telemetry.meterProvider);
    return telemetry;
  }

  /** Finished spans named `name` (all when omitted), in end order. */
  finished(name?: string): ReadableSpan[] {
    const all = this.spans.getFinishedSpans();
    return name === undefined ? all : all.filter((s) => s.name === name);
  }

  /** The metric `name` as last collected, or undefined when it has no data. */
  async metric(name: string): Promise<MetricData | undefined> {
    const { resourceMetrics } = await this.reader.collect();
    for (const scope of resourceMetrics.scopeMetrics)
      for (const metric of scope.metrics) if (metric.descriptor.name === name) return metric;
    return undefined;
  }

  /** The sum of a counter's (or up-down counter's) points whose attributes include `where`. */
  async sum(name: string, where: Record<string, unknown> = {}): Promise<number> {
    const metric = await this.metric(name);
    let total = 0;
    for (const point of (metric?.dataPoints ?? []) as DataPoint<number>[])
      if (matches(point.attributes, where)) total += point.value;
    return total;
  }

  /** The number of values a histogram recorded in points whose attributes include `where`. */
  async histogramCount(name: string, where: Record<string, unknown> = {}): Promise<number> {
    const metric = await this.metric(name);
    let total = 0;
    for (const point of (metric?.dataPoints ?? []) as DataPoint<Histogram>[])
      if (matches(point.attributes, where)) total += point.value.count;
    return total;
  }

  /** Unregisters everything and shuts the providers down. */
  async disable(): Promise<void> {
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
  }
}

function matches(attributes: Record<string, unknown>, where: Record<string, unknown>): boolean {
  return Object.entries(where).every(([key, value]) => attributes[key] === value);
}
