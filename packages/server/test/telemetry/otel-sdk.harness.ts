/**
 * The server suites' view of the test SDK (test/support/otel.ts): finished spans by name and the
 * histogram points of the last collection.
 */
import { type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import { type InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { clientTraceparent, TestTelemetry } from '../../../../test/support/otel.js';

export { clientTraceparent };

/** The OpenTelemetry SDK registered globally for one suite, with in-memory span and metric readers. */
export interface OtelHarness {
  readonly spans: InMemorySpanExporter;
  /** Finished spans named `name`. */
  spansNamed(name: string): ReadableSpan[];
  /** The data points of the metric `name` as last collected. */
  points(name: string): DataPoint<Histogram>[];
  /** Every metric name recorded so far. */
  metricNames(): Promise<string[]>;
  collect(): Promise<MetricData[]>;
  shutdown(): Promise<void>;
}

/** Registers the SDK (context manager, W3C propagator, tracer and meter providers) globally. */
export function registerOtel(): OtelHarness {
  const telemetry = TestTelemetry.register();
  let last: MetricData[] = [];
  const collect = async (): Promise<MetricData[]> => (last = await telemetry.collect());
  return {
    spans: telemetry.spans,
    spansNamed: (name) => telemetry.finished(name),
    points: (name) =>
      last
        .filter((metric) => metric.descriptor.name === name)
        .flatMap((metric) => metric.dataPoints as unknown as DataPoint<Histogram>[]),
    metricNames: async () => (await collect()).map((metric) => metric.descriptor.name),
    collect,
    shutdown: () => telemetry.disable(),
  };
}
