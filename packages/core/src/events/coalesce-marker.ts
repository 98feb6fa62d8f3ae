import { type TaskEvent } from '../models/task-event.model.js';

/**
 * The payload key of an event (any type, terminal ones included) that stands for earlier progress
 * events of its task which were coalesced away under overload (docs/contract.md, "Coalesced
 * progress"): inclusive `[from, to]` seq ranges, ascending, all below the event's own seq.
 */
export const COALESCED_SEQS_KEY = 'rvc_coalesced_seqs';

/** Inclusive, ascending, non-overlapping `[from, to]` seq ranges. */
export type SeqRanges = [number, number][];

/**
 * Most ranges one marker carries. Older ranges beyond it are forgotten, so the receiver reports
 * them as a gap (over-reporting is safe: it reconciles; a marker never claims a seq it may not).
 */
export const MAX_MARKER_RANGES = 32;

/**
 * `ranges` with `more` merged in (both sorted), adjacent ranges joined, the newest kept. The
 * result is a new array of new ranges, sized to what it holds: under overload every queued
 * progress event carries one until it is coalesced in turn (long enough to reach the old
 * generation), and an array grown by `push` from `[]` keeps room for 17 items (~130 B more).
 */
export function mergeRanges(ranges: SeqRanges | undefined, more: SeqRanges | undefined): SeqRanges {
  const all = [...(ranges ?? []), ...(more ?? [])].sort((a, b) => a[0] - b[0]);
  const merged: SeqRanges = [];
  for (const [from, to] of all) {
    const last = merged.at(-1);
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged.length > MAX_MARKER_RANGES ? merged.slice(-MAX_MARKER_RANGES) : merged.slice();
}

/** Most items read from one marker (a poster writes at most {@link MAX_MARKER_RANGES}). */
const MAX_MARKER_ITEMS_READ = 64;

/**
 * The one reading of a marker: the valid `[from, to]` ranges `event` carries, sorted by `from`
 * (not merged), or undefined when none is valid. Ranges of positive safe integers only, read from
 * the first 64 items; a range reaching the event's own seq is clipped below it (`clip`, what a
 * receiver does) or left out. Anything malformed is ignored, so a marker never hides a gap it does
 * not name.
 */
export function readMarker(event: TaskEvent, reaching: 'clip' | 'drop'): SeqRanges | undefined {
  const raw = (event.payload as Record<string, unknown> | undefined)?.[COALESCED_SEQS_KEY];
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const ranges: SeqRanges = [];
  for (const item of raw.slice(0, MAX_MARKER_ITEMS_READ)) {
    if (!Array.isArray(item) || item.length !== 2) continue;
    const [from, to] = item as unknown[];
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) continue;
    const a = from as number;
    const b = reaching === 'clip' ? Math.min(to as number, event.seq - 1) : (to as number);
    if (a >= 1 && a <= b && b < event.seq) ranges.push([a, b]);
  }
  return ranges.length > 0 ? ranges.sort((x, y) => x[0] - y[0]) : undefined;
}

/**
 * The ranges of the marker `event` already carries (an event taken over from the outbox was
 * stored with it), merged, or undefined.
 */
export function markerOf(event: TaskEvent): SeqRanges | undefined {
  const ranges = readMarker(event, 'drop');
  return ranges ? mergeRanges(undefined, ranges) : undefined;
}

/**
 * A copy of an event whose payload carries `ranges` as its coalescing marker. The ranges are not
 * copied: the caller hands over arrays nothing changes any more (the poster freezes them).
 */
export function withMarker(event: TaskEvent, ranges: SeqRanges): TaskEvent {
  // Object.assign, not `{ ...payload, [key]: ranges }`: V8 11 (node 20) gives each object that
  // optimized code builds from a leading spread plus more keys a hidden class of its own, made in
  // the old generation; under overload every post stamps a marker, and that was ~150 B of
  // old-generation garbage per post. Same keys in the same order (the signed bytes are unchanged).
  const payload = Object.assign({}, event.payload, { [COALESCED_SEQS_KEY]: ranges });
  return Object.assign(Object.create(Object.getPrototypeOf(event) as object) as TaskEvent, event, {
    payload,
  });
}

/**
 * Coalesced progress seqs of tasks that have no waiting event to carry them yet; the next event
 * posted for the task takes them (its terminal event included: the task's last event names what
 * was coalesced before it). Bounded: at most `maxTasks` tasks (the oldest are forgotten, which
 * only makes the receiver report a gap).
 */
export class CoalesceLedger {
  private readonly pending = new Map<string, SeqRanges>();

  constructor(private readonly maxTasks: number) {}

  get size(): number {
    return this.pending.size;
  }

  add(taskId: string, ranges: SeqRanges): void {
    const merged = mergeRanges(this.pending.get(taskId), ranges);
    this.pending.delete(taskId);
    this.pending.set(taskId, merged);
    if (this.pending.size <= this.maxTasks) return;
    const oldest = this.pending.keys().next().value;
    if (oldest !== undefined) this.pending.delete(oldest);
  }

  /** Removes and returns the ranges pending for `taskId`. */
  take(taskId: string): SeqRanges | undefined {
    const ranges = this.pending.get(taskId);
    if (ranges) this.pending.delete(taskId);
    return ranges;
  }
}
