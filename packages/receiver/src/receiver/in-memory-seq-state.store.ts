import { type Clock, systemClock } from '@robot-mcp-kit/core';
import { skipCoalesced } from './coalesced-seqs.js';
import { type SeqBegin, type SeqStateStore, type SeqTaskRef } from './seq-state.port.js';

/** Options of {@link InMemorySeqStateStore}. */
export interface InMemorySeqStateStoreOptions {
  /** Most tasks kept (least recently updated first out; default 10 000). */
  readonly maxTasks?: number;
  /** How long a finished task is kept (default 600 000 ms). */
  readonly finishedTtlMs?: number;
  readonly clock?: Clock;
}

interface SeqState {
  highest: number;
  gapReportedThrough: number;
  forgetAt: number;
}

/**
 * The in-memory adapter of {@link SeqStateStore}: the same answers as a receiver's own memory,
 * for one process (tests, or several receivers in one process). Bounded by `maxTasks`.
 */
export class InMemorySeqStateStore implements SeqStateStore {
  private readonly tasks = new Map<string, SeqState>();
  private readonly maxTasks: number;
  private readonly finishedTtlMs: number;
  private readonly clock: Clock;

  constructor(options: InMemorySeqStateStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? 10_000;
    this.finishedTtlMs = options.finishedTtlMs ?? 600_000;
    this.clock = options.clock ?? systemClock;
  }

  get size(): number {
    return this.tasks.size;
  }

  begin(task: SeqTaskRef, seq: number, coalesced: readonly [number, number][]): SeqBegin {
    const state = this.state(task);
    if (seq <= state.highest) return { state: 'ok', highest: state.highest, gapExpected: undefined };
    const expected = skipCoalesced(state.highest, coalesced).through + 1;
    if (seq > expected && seq - 1 > state.gapReportedThrough) {
      state.gapReportedThrough = seq - 1;
      return { state: 'ok', highest: state.highest, gapExpected: expected };
    }
    return { state: 'ok', highest: state.highest, gapExpected: undefined };
  }

  commit(task: SeqTaskRef, seq: number, finished: boolean): number {
    const state = this.state(task);
    const before = state.highest;
    state.highest = Math.max(state.highest, seq);
    state.gapReportedThrough = Math.max(state.gapReportedThrough, seq);
    if (finished) state.forgetAt = this.clock.now() + this.finishedTtlMs;
    return before;
  }

  private state(task: SeqTaskRef): SeqState {
    const key = `${task.server}\u0000${task.taskId}`;
    const now = this.clock.now();
    let state = this.tasks.get(key);
    if (state && state.forgetAt <= now) state = undefined;
    this.tasks.delete(key);
    state ??= { highest: 0, gapReportedThrough: 0, forgetAt: Number.POSITIVE_INFINITY };
    this.tasks.set(key, state);
    while (this.tasks.size > this.maxTasks) {
      const oldest = this.tasks.keys().next().value as string;
      this.tasks.delete(oldest);
    }
    return state;
  }
}
