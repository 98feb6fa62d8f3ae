import { type Clock, type Logger, type TaskEvent, type TimerHandle } from '@robot-mcp-kit/core';
import { coalescedSeqsOf, skipCoalesced } from './coalesced-seqs.js';
import { type SeqGap, type TrackedTask } from './receiver.types.js';
import { type SeqStateStore } from './seq-state.port.js';
import { type Deliver, deliverWithSharedSeq, type Outcome } from './shared-seq.step.js';

export type { Deliver, Outcome } from './shared-seq.step.js';

export interface SeqTrackerOptions {
  readonly deliver: Deliver;
  readonly reportGap: (gap: SeqGap) => void;
  /** In-order mode when set. */
  readonly holdMs: number | undefined;
  readonly maxTasks: number;
  readonly finishedTtlMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Shared per-task seq state (several instances); this process's memory when left out. */
  readonly seqState?: SeqStateStore | undefined;
}

interface HeldEvent {
  readonly event: TaskEvent;
  readonly done: (outcome: Outcome) => void;
}

interface TaskTrack {
  readonly key: string;
  readonly server: string;
  readonly taskId: string;
  readonly tool: string;
  /** Highest seq delivered (0: none yet). */
  highest: number;
  /** Every seq up to this one has been covered by a gap report or a delivery. */
  gapReportedThrough: number;
  /** Early events waiting for the missing ones (in-order mode), sorted by seq. */
  held: HeldEvent[];
  holdTimer: TimerHandle | undefined;
  /** Serializes the work on this task: one `onEvent` at a time, in arrival order. */
  chain: Promise<void>;
  /** Events submitted and not answered yet. */
  busy: number;
  finished: boolean;
}

const TERMINAL_TYPES: ReadonlySet<string> = new Set(['task_done', 'task_failed']);

/**
 * Tracks `seq` per task: reports gaps once, delivers late events without moving the expected
 * seq back, and in in-order mode holds early events until the gap fills or the window closes.
 * Bounded: finished tasks are forgotten after `finishedTtlMs`, and at most `maxTasks` idle
 * tasks are kept (least recently seen first out).
 */
export class SeqTracker {
  private readonly tasks = new Map<string, TaskTrack>();
  /** Finished task keys → when to forget them; insertion order is finishing order. */
  private readonly finished = new Map<string, number>();
  private heldCount = 0;
  private coalescedCount = 0;

  constructor(private readonly options: SeqTrackerOptions) {}

  get held(): number {
    return this.heldCount;
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Seqs accounted for by coalescing markers instead of being reported as gaps. */
  get coalesced(): number {
    return this.coalescedCount;
  }

  /** Tasks seen and not seen finishing, for reconciliation. */
  openTasks(): TrackedTask[] {
    return [...this.tasks.values()]
      .filter((t) => !t.finished)
      .map((t) => ({ server: t.server, task_id: t.taskId, tool: t.tool }));
  }

  /** Resolves once the event has been delivered (or refused by the app). */
  submit(event: TaskEvent): Promise<Outcome> {
    this.sweep();
    const track = this.touch(event);
    track.busy += 1;
    return new Promise<Outcome>((resolve) => {
      const done = (outcome: Outcome): void => {
        track.busy -= 1;
        resolve(outcome);
      };
      this.enqueue(track, () => this.process(track, event, done));
    });
  }

  /** Delivers every held event now (gaps reported) and waits for all work in progress. */
  async flush(): Promise<void> {
    for (const track of this.tasks.values()) {
      if (track.held.length > 0) this.enqueue(track, () => this.drain(track, true));
    }
    await Promise.all([...this.tasks.values()].map((t) => t.chain));
  }

  private async process(track: TaskTrack, event: TaskEvent, done: (o: Outcome) => void): Promise<void> {
    if (this.options.seqState) {
      done(await this.processShared(this.options.seqState, track, event));
      return;
    }
    const { seq } = event;
    if (seq <= track.highest) {
      done(await this.options.deliver(event, true));
      return;
    }
    const expected = this.expectedFor(track, event);
    if (seq > expected) {
      if (this.options.holdMs !== undefined) {
        this.hold(track, { event, done }, this.options.holdMs);
        return;
      }
      this.reportGap(track, seq, expected);
    }
    done(await this.deliverNext(track, event));
    if (track.held.length > 0) await this.drain(track, false);
  }

  /** With a shared {@link SeqStateStore}: see {@link deliverWithSharedSeq}. */
  private async processShared(store: SeqStateStore, track: TaskTrack, event: TaskEvent): Promise<Outcome> {
    const { logger, deliver, reportGap } = this.options;
    const { outcome, advancedFrom } = await deliverWithSharedSeq(
      { store, deliver, reportGap, logger },
      event,
    );
    if (advancedFrom !== undefined) {
      const ranges = coalescedSeqsOf(event);
      if (ranges) this.coalescedCount += countNew(ranges, advancedFrom, event.seq);
      track.highest = Math.max(track.highest, event.seq);
      if (TERMINAL_TYPES.has(event.type)) this.markFinished(track);
    }
    return outcome;
  }

  private hold(track: TaskTrack, held: HeldEvent, holdMs: number): void {
    const at = track.held.findIndex((h) => h.event.seq > held.event.seq);
    track.held.splice(at < 0 ? track.held.length : at, 0, held);
    this.heldCount += 1;
    this.options.logger.debug('holding an early event', {
      server: track.server,
      task_id: track.taskId,
      seq: held.event.seq,
      expected: track.highest + 1,
    });
    track.holdTimer ??= this.options.clock.setTimeout(() => {
      track.holdTimer = undefined;
      this.enqueue(track, () => this.drain(track, true));
    }, holdMs);
  }

  /** Delivers the held events that are next in line; with `force`, all of them (window closed). */
  private async drain(track: TaskTrack, force: boolean): Promise<void> {
    while (track.held.length > 0) {
      const next = track.held[0] as HeldEvent;
      const { seq } = next.event;
      if (!force && seq > this.expectedFor(track, next.event)) break;
      track.held.shift();
      this.heldCount -= 1;
      if (seq <= track.highest) {
        next.done(await this.options.deliver(next.event, true));
        continue;
      }
      const expected = this.expectedFor(track, next.event);
      if (seq > expected) this.reportGap(track, seq, expected);
      next.done(await this.deliverNext(track, next.event));
    }
    if (track.held.length === 0 && track.holdTimer !== undefined) {
      this.options.clock.clearTimeout(track.holdTimer);
      track.holdTimer = undefined;
    }
  }

  /**
   * The seq `event` must have to follow on without a gap: one past the highest delivered, or
   * past the seqs its coalescing marker names right after that (docs/contract.md).
   */
  private expectedFor(track: TaskTrack, event: TaskEvent): number {
    const ranges = coalescedSeqsOf(event);
    return ranges ? skipCoalesced(track.highest, ranges).through + 1 : track.highest + 1;
  }

  private async deliverNext(track: TaskTrack, event: TaskEvent): Promise<Outcome> {
    const outcome = await this.options.deliver(event, false);
    if (outcome.delivered) {
      const ranges = coalescedSeqsOf(event);
      if (ranges) this.coalescedCount += countNew(ranges, track.highest, event.seq);
      track.highest = Math.max(track.highest, event.seq);
      track.gapReportedThrough = Math.max(track.gapReportedThrough, event.seq);
      if (TERMINAL_TYPES.has(event.type)) this.markFinished(track);
    }
    return outcome;
  }

  private reportGap(track: TaskTrack, got: number, expected: number): void {
    if (got - 1 <= track.gapReportedThrough) return;
    track.gapReportedThrough = got - 1;
    this.options.reportGap({ task_id: track.taskId, server: track.server, expected, got });
  }

  private enqueue(track: TaskTrack, job: () => Promise<void>): void {
    track.chain = track.chain.then(job).catch((err: unknown) => {
      this.options.logger.error('seq tracking failed', {
        server: track.server,
        task_id: track.taskId,
        error: err instanceof Error ? err.message : String(err),
      });
    });
  }

  private touch(event: TaskEvent): TaskTrack {
    const key = `${event.server}\u0000${event.task_id}`;
    let track = this.tasks.get(key);
    if (track) {
      this.tasks.delete(key);
    } else {
      track = {
        key,
        server: event.server,
        taskId: event.task_id,
        tool: event.tool,
        highest: 0,
        gapReportedThrough: 0,
        held: [],
        holdTimer: undefined,
        chain: Promise.resolve(),
        busy: 0,
        finished: false,
      };
    }
    this.tasks.set(key, track);
    if (this.tasks.size > this.options.maxTasks) this.evictIdle(this.tasks.size - this.options.maxTasks, key);
    return track;
  }

  private markFinished(track: TaskTrack): void {
    track.finished = true;
    this.finished.delete(track.key);
    this.finished.set(track.key, this.options.clock.now() + this.options.finishedTtlMs);
  }

  /** Forgets finished tasks whose time is up (idle ones only). */
  private sweep(): void {
    const now = this.options.clock.now();
    for (const [key, forgetAt] of this.finished) {
      if (forgetAt > now) break;
      const track = this.tasks.get(key);
      if (track && !isIdle(track)) continue;
      this.finished.delete(key);
      this.tasks.delete(key);
    }
  }

  /** Drops up to `count` least recently seen idle tasks, never `keep`. */
  private evictIdle(count: number, keep: string): void {
    let left = count;
    for (const [key, track] of this.tasks) {
      if (left <= 0) break;
      if (key === keep || !isIdle(track)) continue;
      this.tasks.delete(key);
      this.finished.delete(key);
      left -= 1;
    }
  }
}

/** Seqs of `ranges` above `highest` and below `seq`: the ones the marker newly accounts for. */
function countNew(ranges: readonly [number, number][], highest: number, seq: number): number {
  let count = 0;
  for (const [from, to] of ranges) {
    const a = Math.max(from, highest + 1);
    const b = Math.min(to, seq - 1);
    if (b >= a) count += b - a + 1;
  }
  return count;
}

function isIdle(track: TaskTrack): boolean {
  return track.busy === 0 && track.held.length === 0;
}
