import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';
import { type DeliveryOutcome } from '../events/event.types.js';
import { EVENT_TYPES } from '../models/schema.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { kitInstruments, kitTracer } from './kit-telemetry.js';
import { KIT_ATTRIBUTES, SEMCONV_ATTRIBUTES, SPAN_NAMES } from './telemetry-names.js';

/** What one delivery attempt came to, as the poster sees it. */
export type AttemptResult = 'delivered' | 'retry' | 'gave_up';

/** The metric attributes of an attempt, made once per event type and result (no object per attempt). */
const ATTEMPT_ATTRIBUTES = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    Object.fromEntries(
      (['delivered', 'retry', 'gave_up'] as const).map((result) => [
        result,
        Object.freeze({ [KIT_ATTRIBUTES.eventType]: type, [KIT_ATTRIBUTES.deliveryOutcome]: result }),
      ]),
    ),
  ]),
) as Partial<Record<string, Partial<Record<AttemptResult, Attributes>>>>;

const TYPE_ATTRIBUTES = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, Object.freeze({ [KIT_ATTRIBUTES.eventType]: type })]),
) as Partial<Record<string, Attributes>>;

/**
 * Starts the span of one delivery attempt (`send <event type>`, kind PRODUCER) as a child of the
 * context the event was posted in (its task's span). Returns the context to send in — the
 * transport injects it (`traceparent`) into the request — or undefined when there is nothing to
 * trace or propagate (no SDK registered, no task trace): the attempt then runs as before.
 */
export function startAttemptSpan(
  event: TaskEvent,
  attempt: number,
  parent: Context | undefined,
): { span: Span; context: Context } | undefined {
  const span = kitTracer().startSpan(
    `${SPAN_NAMES.send} ${event.type}`,
    { kind: SpanKind.PRODUCER },
    parent ?? ROOT_CONTEXT,
  );
  if (!isSpanContextValid(span.spanContext())) return undefined;
  if (span.isRecording()) {
    span.setAttributes({
      [SEMCONV_ATTRIBUTES.messagingOperationType]: 'send',
      [SEMCONV_ATTRIBUTES.messagingOperationName]: 'send',
      [SEMCONV_ATTRIBUTES.messagingMessageId]: event.event_id,
      [KIT_ATTRIBUTES.taskId]: event.task_id,
      [KIT_ATTRIBUTES.eventType]: event.type,
      [KIT_ATTRIBUTES.eventSeq]: event.seq,
      [KIT_ATTRIBUTES.deliveryAttempt]: attempt,
    });
  }
  return { span, context: trace.setSpan(parent ?? ROOT_CONTEXT, span) };
}

/**
 * Ends an attempt's span (when there is one) with what it came to — a failed attempt gets ERROR,
 * `error.type` and, when retried, the retry delay in seconds — and counts the attempt in
 * `robot_mcp_kit.delivery.attempts` (and `.failures`).
 */
export function endAttempt(
  event: TaskEvent,
  span: Span | undefined,
  outcome: DeliveryOutcome,
  result: AttemptResult,
  retryDelayMs?: number,
): void {
  if (span?.isRecording()) {
    span.setAttribute(KIT_ATTRIBUTES.deliveryOutcome, result);
    if (outcome.status !== undefined)
      span.setAttribute(SEMCONV_ATTRIBUTES.httpResponseStatusCode, outcome.status);
    if (!outcome.ok) {
      span.setAttribute(
        SEMCONV_ATTRIBUTES.errorType,
        outcome.status !== undefined ? String(outcome.status) : outcome.error,
      );
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
      if (retryDelayMs !== undefined)
        span.setAttribute(KIT_ATTRIBUTES.deliveryRetryDelay, retryDelayMs / 1000);
    }
  }
  span?.end();
  const instruments = kitInstruments();
  const { type } = event;
  instruments.deliveryAttempts.add(1, ATTEMPT_ATTRIBUTES[type]?.[result] ?? attemptAttributes(type, result));
  if (!outcome.ok)
    instruments.deliveryFailures.add(1, TYPE_ATTRIBUTES[type] ?? { [KIT_ATTRIBUTES.eventType]: type });
}

function attemptAttributes(type: string, result: AttemptResult): Attributes {
  return { [KIT_ATTRIBUTES.eventType]: type, [KIT_ATTRIBUTES.deliveryOutcome]: result };
}

/** `robot_mcp_kit.events.queued`: +1 when the poster accepts an event, -1 when it is finished. */
export function countQueued(delta: number): void {
  if (delta !== 0) kitInstruments().eventsQueued.add(delta);
}

/** Counts an event given up (`robot_mcp_kit.events.dropped`, by reason) or coalesced. */
export function countGone(reason: string): void {
  const instruments = kitInstruments();
  if (reason === 'coalesced') instruments.eventsCoalesced.add(1);
  else instruments.eventsDropped.add(1, { [KIT_ATTRIBUTES.dropReason]: reason });
}
