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
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A reader the test collects on demand (no export interval, no sleeps). */
class CollectingReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The OpenTelemetry SDK registered globally for one suite, with in-memory span and metric readers. */
export interface OtelHarness {
  readonly spans: InMemorySpanExporter;
  /** Finished spans named `name`. */
  spansNamed(name: string): ReadableSpan[];
  /** The data points of the metric `name` at this moment. */
  points(name: string): DataPoint<Histogram>[];
  /** Every metric name recorded so far. */
  metricNames(): Promise<string[]>;
  collect(): Promise<MetricData[]>;
  shutdown(): Promise<void>;
}

/** Registers the SDK (context manager, W3C propagator, tracer and meter providers) globally. */
export function registerOtel(): OtelHarness {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  // The SDK is typed against the root @opentelemetry/api (1.9), the kit against its own (1.10):
  // one global registry at run time, two copies of the types.
  metrics.setGlobalMeterProvider(
    meterProvider as unknown as Parameters<typeof metrics.setGlobalMeterProvider>[0],
  );
  let last: MetricData[] = [];
  const collect = async (): Promise<MetricData[]> => {
    const { resourceMetrics } = await reader.collect();
    last = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    return last;
  };
  return {
    spans,
    spansNamed: (name) => spans.getFinishedSpans().filter((span) => span.name === name),
    points: (name) =>
      last
        .filter((metric) => metric.descriptor.name === name)
        .flatMap((metric) => metric.dataPoints as unknown as DataPoint<Histogram>[]),
    metricNames: async () => (await collect()).map((metric) => metric.descriptor.name),
    collect,
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** A W3C `traceparent` of a fresh client span (what an instrumented client puts in `params._meta`). */
export function clientTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const span = trace.getTracer('test-client').startSpan('client call');
  const { traceId, spanId } = span.spanContext();
  span.end();
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
