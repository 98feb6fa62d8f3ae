import { COALESCED_SEQS_KEY, type TaskEvent } from '@robot-mcp-kit/core';

/** Most ranges read from one marker (a poster sends at most 32). */
const MAX_RANGES = 64;

/**
 * The seqs an event says were coalesced away before it, as inclusive `[from, to]` ranges
 * sorted by `from`, or `undefined` when it carries no valid marker. Any event type may carry
 * one (a terminal event names what was coalesced right before the task ended); only ranges of
 * positive integers below the event's own seq count (anything else is ignored, so a malformed
 * marker never hides a gap it does not name). The key stays in the payload handed to `onEvent`.
 */
export function coalescedSeqsOf(event: TaskEvent): [number, number][] | undefined {
  const raw = (event.payload as Record<string, unknown> | undefined)?.[COALESCED_SEQS_KEY];
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const ranges: [number, number][] = [];
  for (const item of raw.slice(0, MAX_RANGES)) {
    if (!Array.isArray(item) || item.length !== 2) continue;
    const [from, to] = item as unknown[];
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) continue;
    const a = from as number;
    const b = Math.min(to as number, event.seq - 1);
    if (a >= 1 && a <= b) ranges.push([a, b]);
  }
  return ranges.length > 0 ? ranges.sort((x, y) => x[0] - y[0]) : undefined;
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
