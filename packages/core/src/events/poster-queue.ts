import { CoalesceLedger, type SeqRanges, markerOf, mergeRanges, withMarker } from './coalesce-marker.js';
import { deepFreeze } from '../tasks/task-json.util.js';
import { type DropClass, type QueuedEvent, WaitingEvents, dropClassOf } from './event-queue.js';

/** Why the poster gave an event up (`coalesced`: a progress event superseded under overload). */
export type DropReason = 'queue_full' | 'too_large' | 'retry_cap' | 'closed' | 'unserializable' | 'coalesced';

/** What one queued event is charged: its body (UTF-16 worst case counted once) plus the event object. */
export function costOf(body: string): number {
  return 2 * body.length + ENTRY_OVERHEAD_BYTES;
}

/** Bookkeeping, links and the event object's fixed part, per entry. */
const ENTRY_OVERHEAD_BYTES = 512;

/** Drop classes sacrificed for room after progress, in order (terminal only for a non-progress). */
const AFTER_PROGRESS: readonly DropClass[] = ['watch_event', 'trigger_fired'];

/**
 * The poster's queue: every accepted event until it is delivered or given up, bounded by count
 * (`maxQueue`) and bytes (`maxQueueBytes`). Admitting an event into a full queue makes room by
 * the overload policy (docs/contract.md, "Coalesced progress"): while any progress event waits,
 * a progress event goes — the task's own oldest first, else the oldest of any task — and its
 * seq rides on the task's next waiting event as a coalescing marker, so terminal events,
 * `trigger_fired` and `watch_event` are never dropped for room while progress waits.
 */
export class PosterQueue {
  readonly waiting: WaitingEvents;
  private readonly ledger: CoalesceLedger;
  private depthCount = 0;
  private byteCount = 0;
  /** Events taken by their lane and not released yet (being sent or retried): at most one a lane. */
  private heads = 0;

  constructor(
    lanes: number,
    private readonly limits: { readonly maxQueue: number; readonly maxQueueBytes: number },
    private readonly gone: (entry: QueuedEvent, reason: DropReason) => void,
  ) {
    this.waiting = new WaitingEvents(lanes, limits.maxQueue);
    this.ledger = new CoalesceLedger(limits.maxQueue);
  }

  /** Events waiting or in flight. */
  get depth(): number {
    return this.depthCount;
  }

  /** Bytes charged for them (see {@link costOf}). */
  get bytes(): number {
    return this.byteCount;
  }

  /**
   * Queues `entry`, making room first. Returns false when the entry itself had to go (its drop
   * already reported through `gone`).
   */
  admit(entry: QueuedEvent): boolean {
    // Seqs coalesced with no carrier waiting ride on the task's next event, terminal included.
    const pending = this.ledger.take(entry.taskId);
    if (pending) this.stamp(entry, pending, false);
    if (entry.bytes > this.limits.maxQueueBytes) {
      this.handOn(entry, false);
      this.gone(entry, 'too_large');
      return false;
    }
    while (this.full(entry)) {
      const victim = this.victimFor(entry);
      if (!victim) {
        this.dropIncoming(entry);
        return false;
      }
      this.evict(victim, entry);
    }
    this.waiting.add(entry);
    this.depthCount += 1;
    this.byteCount += entry.bytes;
    return true;
  }

  /** Takes the next waiting event of a lane; it stays counted until {@link release}. */
  take(lane: number): QueuedEvent | undefined {
    const entry = this.waiting.takeNext(lane);
    if (entry) this.heads += 1;
    return entry;
  }

  /** Uncounts an event that left the queue (delivered, or given up, at its lane head or waiting). */
  release(entry: QueuedEvent): void {
    if (entry.state === 'inflight') this.heads -= 1;
    this.depthCount -= 1;
    this.byteCount -= entry.bytes;
  }

  /** Removes every waiting event (the aclose deadline passed) and resets the counts. */
  drainAll(): QueuedEvent[] {
    const all = this.waiting.drain();
    this.depthCount = 0;
    this.byteCount = 0;
    this.heads = 0;
    return all;
  }

  /**
   * Whether `incoming` needs room: `maxQueue` counts the waiting events (the lane heads being
   * sent or retried, at most one a lane, come on top: they leave with their send and can never
   * be made room from); `maxQueueBytes` counts every queued event.
   */
  private full(incoming: QueuedEvent): boolean {
    return (
      this.depthCount - this.heads + 1 > this.limits.maxQueue ||
      this.byteCount + incoming.bytes > this.limits.maxQueueBytes
    );
  }

  private victimFor(incoming: QueuedEvent): QueuedEvent | undefined {
    const progress = this.waiting.oldestProgressOf(incoming.taskId) ?? this.waiting.oldest('progress');
    if (progress) return progress;
    for (const cls of AFTER_PROGRESS) {
      const entry = this.waiting.oldest(cls);
      if (entry) return entry;
    }
    return incoming.event.type === 'progress' ? undefined : this.waiting.oldest('terminal');
  }

  private evict(victim: QueuedEvent, incoming: QueuedEvent): void {
    const next = this.waiting.nextOfTask(victim);
    this.waiting.remove(victim);
    this.release(victim);
    const progress = victim.event.type === 'progress';
    // A coalesced progress names its own seq; a dropped non-terminal victim hands on the seqs it
    // carried. They ride on the next event of the task (terminal events included); with none
    // waiting, on the incoming one or the task's next post. Nothing follows a terminal victim.
    const ranges = progress
      ? mergeRanges(victim.coalesced, [[victim.event.seq, victim.event.seq]])
      : victim.coalesced;
    if (ranges && ranges.length > 0 && dropClassOf(victim.event.type) !== 'terminal') {
      const carrier = next ?? (incoming.taskId === victim.taskId ? incoming : undefined);
      if (carrier) this.stamp(carrier, ranges, carrier !== incoming);
      else this.ledger.add(victim.taskId, ranges);
    }
    this.gone(victim, progress ? 'coalesced' : 'queue_full');
  }

  /** Drops the incoming event itself: a progress event is coalesced into the task's next event. */
  private dropIncoming(entry: QueuedEvent): void {
    const progress = entry.event.type === 'progress';
    this.handOn(entry, progress);
    this.gone(entry, progress ? 'coalesced' : 'queue_full');
  }

  /**
   * Leaves the seqs a dropped incoming event carried (and its own seq when `own`: it was
   * coalesced) for the task's next post. A terminal event has none: what it carried is lost,
   * and the receiver reports the gap (reconciliation covers it).
   */
  private handOn(entry: QueuedEvent, own: boolean): void {
    if (dropClassOf(entry.event.type) === 'terminal') return;
    const ranges = own ? mergeRanges(entry.coalesced, [[entry.event.seq, entry.event.seq]]) : entry.coalesced;
    if (ranges && ranges.length > 0) this.ledger.add(entry.taskId, ranges);
  }

  /**
   * Adds `ranges` to the marker of `carrier` (a copy of its event with the marker; its byte charge
   * from the new body); `queued` when already counted. The new body is not kept: a carrier waits,
   * most often to be coalesced in turn under the overload that stamped it, and its body is made
   * again if it is sent (or written to the outbox), from the same event.
   */
  private stamp(carrier: QueuedEvent, ranges: SeqRanges, queued: boolean): void {
    const below = ranges.filter(([from]) => from < carrier.event.seq);
    const clipped = below.map(([from, to]): [number, number] => [from, Math.min(to, carrier.event.seq - 1)]);
    if (clipped.length === 0) return;
    // A carrier taken over from the outbox keeps the marker its stored body already had.
    const marker = deepFreeze(mergeRanges(carrier.coalesced ?? markerOf(carrier.event), clipped));
    carrier.coalesced = marker;
    carrier.event = withMarker(carrier.event, marker);
    const before = carrier.bytes;
    carrier.bytes = costOf(JSON.stringify(carrier.event));
    carrier.forgetBody();
    if (queued) this.byteCount += carrier.bytes - before;
  }
}
