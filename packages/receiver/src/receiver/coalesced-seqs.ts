import { type TaskEvent } from '@robot-mcp-kit/core';
import { readMarker } from '@robot-mcp-kit/core/transport';

/**
 * The seqs an event says were coalesced away before it, as inclusive `[from, to]` ranges
 * sorted by `from`, or `undefined` when it carries no valid marker. Any event type may carry
 * one (a terminal event names what was coalesced right before the task ended); only ranges of
 * positive integers below the event's own seq count (a range reaching it is clipped; anything
 * else is ignored, so a malformed marker never hides a gap it does not name). The key stays in
 * the payload handed to `onEvent`.
 */
export function coalescedSeqsOf(event: TaskEvent): [number, number][] | undefined {
  return readMarker(event, 'clip');
}

/**
 * The highest seq accounted for when `highest` was delivered and the event carries `ranges`:
 * `highest` moved up through every range that starts right after it (gaps between ranges are
 * real). Also returns how many seqs the ranges newly accounted for.
 */
export function skipCoalesced(
  highest: number,
  ranges: readonly [number, number][] | undefined,
): { through: number; skipped: number } {
  let through = highest;
  let skipped = 0;
  for (const [from, to] of ranges ?? []) {
    if (from > through + 1) break;
    if (to > through) {
      skipped += to - through;
      through = to;
    }
  }
  return { through, skipped };
}
