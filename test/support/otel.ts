/**
 * The OpenTelemetry SDK for tests: an in-memory span exporter behind a SimpleSpanProcessor on a
 * NodeTracerProvider (AsyncLocalStorage context manager, W3C trace-context propagator) and a
 * MeterProvider with a manual reader (`collect()`, no timers). Register once per test file and
 * `disable()` in afterAll: the global API then goes back to its no-ops.
 *
 * The globals are set through `@opentelemetry/api` as an app would: if the kit's packages resolved
 * another copy than the SDK's (an api 1.10 ignores an SDK registered through 1.9), every telemetry
 * test here would record nothing and fail.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
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

  /** Every metric recorded so far (a collection of the reader). */
  async collect(): Promise<MetricData[]> {
    const { resourceMetrics } = await this.reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
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

/** A W3C `traceparent` of a fresh client span (what an instrumented client puts in `params._meta`). */
export function clientTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const span = trace.getTracer('test-client').startSpan('client call');
  const { traceId, spanId } = span.spanContext();
  span.end();
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
