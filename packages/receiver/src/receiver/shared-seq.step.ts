import { type Logger, type TaskEvent } from '@robot-mcp-kit/core';
import { coalescedSeqsOf } from './coalesced-seqs.js';
import { type SeqGap } from './receiver.types.js';
import { type SeqStateStore } from './seq-state.port.js';

/**
 * What became of one event handed to the tracker. `retryAfterS`: not handed to the app because
 * the shared seq state could not answer (refuse with 503 + Retry-After).
 */
export type Outcome =
  | { readonly delivered: true }
  | { readonly delivered: false; readonly error: unknown; readonly retryAfterS?: number };

/** Hands one event to the app; `late` when its seq is not newer than one already delivered. */
export type Deliver = (event: TaskEvent, late: boolean) => Promise<Outcome>;

export interface SharedSeqContext {
  readonly store: SeqStateStore;
  readonly deliver: Deliver;
  readonly reportGap: (gap: SeqGap) => void;
  readonly logger: Logger;
}

/** The outcome, and the highest seq before this event when it raised the shared highest seq. */
export interface SharedSeqResult {
  readonly outcome: Outcome;
  readonly advancedFrom: number | undefined;
}

/**
 * One event with a shared {@link SeqStateStore}: the gap decision and the highest seq live in
 * the store (several instances), the delivery here. A store that throws answers 500 (retry).
 */
export async function deliverWithSharedSeq(
  ctx: SharedSeqContext,
  event: TaskEvent,
): Promise<SharedSeqResult> {
  const ref = { server: event.server, taskId: event.task_id };
  const meta = { server: event.server, task_id: event.task_id, seq: event.seq };
  const ranges = coalescedSeqsOf(event);
  let begun;
  try {
    begun = await ctx.store.begin(ref, event.seq, ranges ?? []);
  } catch (error) {
    ctx.logger.error('the shared seq state failed; answering 500 so that the poster retries', {
      ...meta,
      error: errorText(error),
    });
    return { outcome: { delivered: false, error }, advancedFrom: undefined };
  }
  if (begun.state === 'unavailable') {
    const error = new Error('seq state unavailable');
    return { outcome: { delivered: false, error, retryAfterS: begun.retryAfterS }, advancedFrom: undefined };
  }
  if (begun.gapExpected !== undefined) {
    ctx.reportGap({
      task_id: event.task_id,
      server: event.server,
      expected: begun.gapExpected,
      got: event.seq,
    });
  }
  const late = event.seq <= begun.highest;
  const outcome = await ctx.deliver(event, late);
  if (!outcome.delivered || late) return { outcome, advancedFrom: undefined };
  let before = begun.highest;
  try {
    before = await ctx.store.commit(
      ref,
      event.seq,
      event.type === 'task_done' || event.type === 'task_failed',
    );
  } catch (error) {
    ctx.logger.error(
      'the shared seq state did not take a delivered seq; the next event of the task may be reported as a gap',
      { ...meta, error: errorText(error) },
    );
  }
  return { outcome, advancedFrom: before };
}

function errorText(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
