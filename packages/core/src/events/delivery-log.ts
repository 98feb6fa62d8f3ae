import { type LogMeta } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type QueuedEvent } from './event-queue.js';

/** Why the poster gave an event up. */
export type DropReason = 'queue_full' | 'retry_cap';

/** The identifying fields of an event for a log line (safe on malformed input). */
export function idsOf(event: TaskEvent | null | undefined): LogMeta {
  return { event_id: event?.event_id, task_id: event?.task_id, seq: event?.seq, type: event?.type };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The one error line logged when an event is dropped: message and fields. */
export function dropLine(
  entry: QueuedEvent,
  reason: DropReason,
  context: { nowMs: number; maxQueue: number; maxRetryMs: number },
): { message: string; meta: LogMeta } {
  const { event } = entry;
  const why =
    reason === 'queue_full'
      ? `the queue is full (${context.maxQueue} events)`
      : `gave up after ${entry.attempts} attempts in ${context.nowMs - entry.postedAt} ms` +
        ` (retry cap ${context.maxRetryMs} ms); last error: ${entry.lastError ?? 'none'}`;
  return {
    message: `dropped ${event.type} event ${event.event_id} (task ${event.task_id}, seq ${event.seq}): ${why}`,
    meta: { ...idsOf(event), reason, attempts: entry.attempts, last_error: entry.lastError ?? null },
  };
}
