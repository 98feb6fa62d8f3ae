/**
 * `@robot-mcp-kit/core/telemetry`: the kit's OpenTelemetry names and its tracer and meter, for the
 * kit's other packages and for apps that check or filter the kit's telemetry. The kit uses only
 * `@opentelemetry/api`: with no SDK registered all of it is a no-op (docs/observability.md).
 *
 * @packageDocumentation
 */
export {
  KIT_ATTRIBUTES,
  KIT_METRICS,
  SEMCONV_ATTRIBUTES,
  SPAN_NAMES,
  TASK_SPAN_EVENTS,
  TRACE_CONTEXT_FIELDS,
} from './telemetry-names.js';
export {
  KIT_SCOPE,
  KIT_SCOPE_VERSION,
  type KitInstruments,
  kitInstruments,
  kitMeter,
  kitTracer,
} from './kit-telemetry.js';
