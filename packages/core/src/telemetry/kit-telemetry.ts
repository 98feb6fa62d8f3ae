import {
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
  type UpDownCounter,
  metrics,
  trace,
} from '@opentelemetry/api';
import { KIT_METRICS } from './telemetry-names.js';

/** The instrumentation scope of the kit's spans and metrics. */
export const KIT_SCOPE = '@robot-mcp-kit/core';
/** The version of that scope. */
export const KIT_SCOPE_VERSION = '0.1.0';

let tracerOf: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * The kit's tracer from the global OpenTelemetry API (`trace.getTracer('@robot-mcp-kit/core')`):
 * a no-op until an app registers an SDK. Cached per registered provider.
 */
export function kitTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (tracerOf?.provider !== provider)
    tracerOf = { provider, tracer: provider.getTracer(KIT_SCOPE, KIT_SCOPE_VERSION) };
  return tracerOf.tracer;
}

/** The kit's meter from the global OpenTelemetry API: a no-op until an app registers an SDK. */
export function kitMeter(): Meter {
  return metrics.getMeter(KIT_SCOPE, KIT_SCOPE_VERSION);
}

/** The kit's metric instruments (see {@link KIT_METRICS}), created once per registered meter provider. */
export interface KitInstruments {
  readonly tasksRunning: UpDownCounter;
  readonly taskDuration: Histogram;
  readonly eventsQueued: UpDownCounter;
  readonly deliveryAttempts: Counter;
  readonly deliveryFailures: Counter;
  readonly eventsCoalesced: Counter;
  readonly eventsDropped: Counter;
  readonly replicaLeases: Counter;
}

/** Buckets for task durations: tasks run from a fraction of a second to an hour. */
const TASK_DURATION_BUCKETS_S = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

let instrumentsOf: { provider: MeterProvider; instruments: KitInstruments } | undefined;

/**
 * The kit's instruments. The metrics API has no proxy provider (an instrument made before the SDK
 * is registered stays a no-op), so they are made again, once, when the global provider changes.
 */
export function kitInstruments(): KitInstruments {
  const provider = metrics.getMeterProvider();
  if (instrumentsOf?.provider === provider) return instrumentsOf.instruments;
  const meter = provider.getMeter(KIT_SCOPE, KIT_SCOPE_VERSION);
  const m = KIT_METRICS;
  const instruments: KitInstruments = {
    tasksRunning: meter.createUpDownCounter(m.tasksRunning.name, options(m.tasksRunning)),
    taskDuration: meter.createHistogram(m.taskDuration.name, {
      ...options(m.taskDuration),
      advice: { explicitBucketBoundaries: TASK_DURATION_BUCKETS_S },
    }),
    eventsQueued: meter.createUpDownCounter(m.eventsQueued.name, options(m.eventsQueued)),
    deliveryAttempts: meter.createCounter(m.deliveryAttempts.name, options(m.deliveryAttempts)),
    deliveryFailures: meter.createCounter(m.deliveryFailures.name, options(m.deliveryFailures)),
    eventsCoalesced: meter.createCounter(m.eventsCoalesced.name, options(m.eventsCoalesced)),
    eventsDropped: meter.createCounter(m.eventsDropped.name, options(m.eventsDropped)),
    replicaLeases: meter.createCounter(m.replicaLeases.name, options(m.replicaLeases)),
  };
  instrumentsOf = { provider, instruments };
  return instruments;
}

function options(metric: { unit: string; description: string }): { unit: string; description: string } {
  return { unit: metric.unit, description: metric.description };
}
