import { type SpanContext, trace } from '@opentelemetry/api';

/**
 * Where a task's trace context is found: the core's `TaskManager.traceContextOf(taskId)` (its task
 * spans) when that exists. Read as an optional member, so a task manager without task spans links
 * nothing.
 */
export interface TaskTraceSource {
  readonly traceContextOf?: (taskId: string) => SpanContext | undefined;
}

/**
 * Links the active span (a task method's server span: SEP-1686 `tasks/*`, the SEP-2663 methods,
 * `get_task` / `cancel_task`) to the span of the task it names, so that the request joins the task's
 * trace. Nothing is looked up when the active span does not record.
 */
export function linkActiveSpanToTask(source: object, taskId: string): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const lookup = (source as TaskTraceSource).traceContextOf;
  const linked = typeof lookup === 'function' ? lookup.call(source, taskId) : undefined;
  if (linked) span.addLink({ context: linked });
}
