import { type Clock, type TimerHandle } from '../clock/clock.port.js';
import { type LogMeta } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type DropReason } from './poster-queue.js';

/** How often at most the poster logs what it dropped (one line per window). */
export const DROP_SUMMARY_WINDOW_MS = 10_000;
/** Most task ids named in one summary line (the ones with the most drops). */
const MAX_TASKS_NAMED = 10;
/** Most distinct task ids counted per window; the rest are counted as `other`. */
const MAX_TASKS_COUNTED = 1000;

type Emit = (level: 'error' | 'warn', message: string, meta: LogMeta) => void;

/**
 * Rate-limited logging of dropped and coalesced events: the first one after a quiet window is
 * logged in full (the caller's line), every later one within the window is only counted, and
 * one summary line per window gives the counts per reason and the tasks with most drops. Memory
 * is bounded (at most {@link MAX_TASKS_COUNTED} task ids per window).
 */
export class DropSummary {
  private timer: TimerHandle | undefined;
  private byReason = new Map<DropReason, number>();
  private byTask = new Map<string, number>();
  private otherTasks = 0;
  private total = 0;

  constructor(
    private readonly clock: Clock,
    private readonly emit: Emit,
    private readonly windowMs = DROP_SUMMARY_WINDOW_MS,
  ) {}

  /**
   * Records one drop. Returns true when the caller should log it in full (the first of a window);
   * the drop is then not repeated in the summary.
   */
  record(event: TaskEvent, reason: DropReason): boolean {
    if (this.timer === undefined) {
      this.timer = this.startWindow();
      return true;
    }
    this.total += 1;
    this.byReason.set(reason, (this.byReason.get(reason) ?? 0) + 1);
    const task = String(event?.task_id);
    const count = this.byTask.get(task);
    if (count !== undefined) this.byTask.set(task, count + 1);
    else if (this.byTask.size < MAX_TASKS_COUNTED) this.byTask.set(task, 1);
    else this.otherTasks += 1;
    return false;
  }

  /** Logs what is counted now and stops the window (the poster is closing). */
  flush(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.report();
  }

  private tick(): void {
    this.timer = undefined;
    // Keep the window going while drops keep coming, so a storm never logs more than one line a window.
    if (this.report()) this.timer = this.startWindow();
  }

  /** A window timer; `undefined` when the clock cannot schedule one (every drop is then logged). */
  private startWindow(): TimerHandle | undefined {
    try {
      return this.clock.setTimeout(() => this.tick(), this.windowMs);
    } catch {
      return undefined;
    }
  }

  private report(): boolean {
    if (this.total === 0) return false;
    const reasons = Object.fromEntries(this.byReason);
    const tasks = [...this.byTask].sort((a, b) => b[1] - a[1]).slice(0, MAX_TASKS_NAMED);
    const onlyCoalesced = this.byReason.size === 1 && this.byReason.has('coalesced');
    const list = Object.entries(reasons)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    const verb = onlyCoalesced ? 'coalesced' : 'dropped or coalesced';
    this.emit(
      onlyCoalesced ? 'warn' : 'error',
      `${verb} ${this.total} more events in the last window (${list})`,
      {
        dropped: this.total,
        by_reason: reasons,
        top_tasks: Object.fromEntries(tasks),
        tasks: this.byTask.size + (this.otherTasks > 0 ? 1 : 0),
        window_ms: this.windowMs,
      },
    );
    this.byReason = new Map();
    this.byTask = new Map();
    this.otherTasks = 0;
    this.total = 0;
    return true;
  }
}
