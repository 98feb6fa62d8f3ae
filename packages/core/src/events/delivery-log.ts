import { type LogMeta } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type QueuedEvent } from './event-queue.js';
import { type DropReason } from './poster-queue.js';

export type { DropReason } from './poster-queue.js';

/** The identifying fields of an event for a log line (safe on malformed input). */
export function idsOf(event: TaskEvent | null | undefined): LogMeta {
  return { event_id: event?.event_id, task_id: event?.task_id, seq: event?.seq, type: event?.type };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Limits quoted in a drop line. */
export interface DropContext {
  nowMs: number;
  maxQueue: number;
  maxQueueBytes: number;
  maxRetryMs: number;
}

function why(entry: QueuedEvent, reason: DropReason, context: DropContext): string {
  switch (reason) {
    case 'queue_full':
      return `the queue is full (${context.maxQueue} events or ${context.maxQueueBytes} bytes)`;
    case 'too_large':
      return `the event alone (${entry.bytes} bytes) exceeds maxQueueBytes (${context.maxQueueBytes})`;
    case 'coalesced':
      return 'superseded by a newer event of its task while the queue was full (coalesced)';
    default:
      return (
        `gave up after ${entry.attempts} attempts in ${context.nowMs - entry.postedAt} ms` +
        ` (retry cap ${context.maxRetryMs} ms); last error: ${entry.lastError ?? 'none'}`
      );
  }
}

/** The full line logged for the first drop of a summary window: message and fields. */
export function dropLine(
  entry: QueuedEvent,
  reason: DropReason,
  context: DropContext,
): { message: string; meta: LogMeta } {
  const { event } = entry;
  return {
    message:
      `${reason === 'coalesced' ? 'coalesced' : 'dropped'} ${event.type} event ${event.event_id}` +
      ` (task ${event.task_id}, seq ${event.seq}): ${why(entry, reason, context)};` +
      ' further drops are summarized every 10 s',
    meta: { ...idsOf(event), reason, attempts: entry.attempts, last_error: entry.lastError ?? null },
  };
}
