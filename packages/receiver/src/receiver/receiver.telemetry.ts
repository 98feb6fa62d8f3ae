import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  isSpanContextValid,
  propagation,
  trace,
} from '@opentelemetry/api';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { KIT_ATTRIBUTES, SEMCONV_ATTRIBUTES, SPAN_NAMES } from '@robot-mcp-kit/core/telemetry';
import { type HeaderBag } from './receiver.types.js';

/** The instrumentation scope of the receiver's spans. */
const RECEIVER_SCOPE = '@robot-mcp-kit/receiver';

/** Reads a trace context field from request headers (node:http, Express, Fastify: lower-case names). */
const headerGetter: TextMapGetter<HeaderBag> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key.toLowerCase()],
};

/**
 * Starts the receiver's span of one request, `process <event type>` (kind SERVER), as a child of
 * the trace context the poster sent (`traceparent`, `tracestate` headers; extracted by the
 * registered propagator), or a root span without one. Undefined when no SDK is registered.
 */
export function startProcessSpan(headers: HeaderBag): { span: Span; context: Context } | undefined {
  const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  const span = trace
    .getTracer(RECEIVER_SCOPE)
    .startSpan(SPAN_NAMES.process, { kind: SpanKind.SERVER }, parent);
  if (!isSpanContextValid(span.spanContext())) return undefined;
  if (span.isRecording()) span.setAttribute(SEMCONV_ATTRIBUTES.messagingOperationType, 'process');
  return { span, context: trace.setSpan(parent, span) };
}

/** Names the active receive span after the event it carries, once the event is authenticated. */
export function describeProcessSpan(event: TaskEvent): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(`${SPAN_NAMES.process} ${event.type}`);
  span.setAttributes({
    [SEMCONV_ATTRIBUTES.messagingMessageId]: event.event_id,
    [KIT_ATTRIBUTES.taskId]: event.task_id,
    [KIT_ATTRIBUTES.eventType]: event.type,
    [KIT_ATTRIBUTES.eventSeq]: event.seq,
  });
}

/** Ends the receive span with the status answered (5xx: ERROR). */
export function endProcessSpan(span: Span, status: number): void {
  if (span.isRecording()) {
    span.setAttribute(SEMCONV_ATTRIBUTES.httpResponseStatusCode, status);
    if (status >= 500) {
      span.setAttribute(SEMCONV_ATTRIBUTES.errorType, String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}
