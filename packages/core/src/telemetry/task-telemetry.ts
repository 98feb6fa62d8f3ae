import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';
import { type JsonObject } from '../models/json.types.js';
import { type EventType } from '../models/schema.js';
import { kitInstruments, kitTracer } from './kit-telemetry.js';
import { KIT_ATTRIBUTES, SEMCONV_ATTRIBUTES, SPAN_NAMES, TASK_SPAN_EVENTS } from './telemetry-names.js';

/** The telemetry handle of one running task: its span and the context its events are posted in. */
export interface TaskTrace {
  /** Dropped (undefined) once the task ended. */
  span: Span | undefined;
  /** The context holding the task span: what its events' delivery spans are parented on. */
  readonly context: Context;
}

/**
 * Starts the span of a new task: a root span (a task outlives the call that started it) linked to
 * the span active now — the server's `tools/call` span. Undefined when no SDK is registered (the
 * no-op tracer gives an invalid span context): the task then carries nothing.
 */
export function startTaskTrace(taskId: string, tool: string, replicaId?: string): TaskTrace | undefined {
  const caller = trace.getActiveSpan()?.spanContext();
  const links: Link[] | undefined = caller && isSpanContextValid(caller) ? [{ context: caller }] : undefined;
  const span = kitTracer().startSpan(`${SPAN_NAMES.task} ${tool}`, {
    kind: SpanKind.INTERNAL,
    root: true,
    links,
  });
  if (!isSpanContextValid(span.spanContext())) return undefined;
  if (span.isRecording()) {
    span.setAttribute(SEMCONV_ATTRIBUTES.genAiToolName, tool);
    span.setAttribute(KIT_ATTRIBUTES.taskId, taskId);
    if (replicaId !== undefined) span.setAttribute(KIT_ATTRIBUTES.replicaId, replicaId);
  }
  return { span, context: trace.setSpan(ROOT_CONTEXT, span) };
}

/** The span context of a task's trace, for links from the calls that read or cancel it. */
export function spanContextOf(taskTrace: TaskTrace | undefined): SpanContext | undefined {
  return taskTrace ? trace.getSpanContext(taskTrace.context) : undefined;
}

/** Records an emitted event on the task span: progress and fired triggers become span events. */
export function recordTaskEvent(
  taskTrace: TaskTrace | undefined,
  type: EventType,
  seq: number,
  payload: JsonObject,
): void {
  const span = taskTrace?.span;
  if (!span?.isRecording()) return;
  if (type === 'progress') {
    const attributes: Attributes = { [KIT_ATTRIBUTES.eventSeq]: seq };
    const { percent } = payload;
    if (typeof percent === 'number') attributes[KIT_ATTRIBUTES.progressPercent] = percent;
    span.addEvent(TASK_SPAN_EVENTS.progress, attributes);
  } else if (type === 'trigger_fired') {
    const attributes: Attributes = { [KIT_ATTRIBUTES.eventSeq]: seq };
    const trigger = payload.trigger as { type?: unknown } | null | undefined;
    if (typeof trigger?.type === 'string') attributes[KIT_ATTRIBUTES.triggerType] = trigger.type;
    span.addEvent(TASK_SPAN_EVENTS.triggerFired, attributes);
  }
}

/** Records a cancel request on the task span. */
export function recordCancelRequested(taskTrace: TaskTrace | undefined): void {
  const span = taskTrace?.span;
  if (span?.isRecording()) span.addEvent(TASK_SPAN_EVENTS.cancelRequested);
}

/**
 * Ends the task span with its terminal state (succeeded: OK; failed: ERROR with `error.type` = the
 * failure code; cancelled: UNSET) and drops it from the handle.
 */
export function endTaskTrace(
  taskTrace: TaskTrace | undefined,
  state: 'succeeded' | 'failed' | 'cancelled',
  failureCode: string | undefined,
): void {
  const span = taskTrace?.span;
  if (!span) return;
  taskTrace.span = undefined;
  if (span.isRecording()) {
    span.setAttribute(KIT_ATTRIBUTES.taskState, state);
    if (state === 'succeeded') span.setStatus({ code: SpanStatusCode.OK });
    else if (state === 'failed') {
      span.setAttribute(SEMCONV_ATTRIBUTES.errorType, failureCode ?? 'failed');
      span.setStatus({ code: SpanStatusCode.ERROR, message: failureCode });
    }
  }
  span.end();
}

/** Counts a started task in `robot_mcp_kit.tasks.running`. */
export function countTaskStarted(tool: string): void {
  kitInstruments().tasksRunning.add(1, { [SEMCONV_ATTRIBUTES.genAiToolName]: tool });
}

/** Counts a task's end: out of `tasks.running`, its duration into `robot_mcp_kit.task.duration`. */
export function countTaskEnded(tool: string, state: string, durationMs: number): void {
  const instruments = kitInstruments();
  instruments.tasksRunning.add(-1, { [SEMCONV_ATTRIBUTES.genAiToolName]: tool });
  instruments.taskDuration.record(Math.max(0, durationMs) / 1000, {
    [SEMCONV_ATTRIBUTES.genAiToolName]: tool,
    [KIT_ATTRIBUTES.taskState]: state,
  });
}
