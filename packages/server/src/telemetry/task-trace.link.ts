import { trace } from '@opentelemetry/api';
import { type TaskManager } from '@robot-mcp-kit/core';

/** Where a task's trace context is found: the task manager's task spans. */
export type TaskTraceSource = Pick<TaskManager, 'traceContextOf'>;

/**
 * Links the active span (a task method's server span: SEP-1686 `tasks/*`, the SEP-2663 methods,
 * `get_task` / `cancel_task`) to the span of the task it names, so that the request joins the task's
 * trace. Nothing is looked up when the active span does not record.
 */
export function linkActiveSpanToTask(source: TaskTraceSource, taskId: string): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const linked = source.traceContextOf(taskId);
  if (linked) span.addLink({ context: linked });
}
