import { type TaskEvent, type TaskInfo, type TaskState } from '@robot-mcp-kit/core';
import { type ReconcileReport, type SeqGap, type TrackedTask } from '@robot-mcp-kit/receiver';
import { formatEvent, formatGap, formatReport } from './event-line.formatter.js';

/** What the app knows of one task. */
export interface BoardEntry {
  readonly server: string;
  readonly task_id: string;
  tool: string;
  state: TaskState;
  /** Highest seq seen in an event (0 when only known from a reconcile). */
  lastSeq: number;
}

/** Most tasks remembered; the oldest finished ones are forgotten first. */
const MAX_TASKS = 10_000;

const TERMINAL_EVENTS: Partial<Record<TaskEvent['type'], TaskState>> = {
  task_done: 'succeeded',
  task_failed: 'failed',
};

/**
 * The chat app's view of the tasks: which are still open (running), updated by events and by
 * reconcile reports, with one printed line per event, gap and reconciled task.
 */
export class TaskBoard {
  private readonly tasks = new Map<string, BoardEntry>();

  constructor(private readonly print: (line: string) => void = (line) => console.log(line)) {}

  /** An event the receiver accepted (verified, not a duplicate). */
  record(event: TaskEvent, late = false): void {
    this.print(formatEvent(event, late));
    const entry = this.entry(event.server, event.task_id, event.tool);
    entry.lastSeq = Math.max(entry.lastSeq, event.seq);
    const terminal = TERMINAL_EVENTS[event.type];
    if (terminal) entry.state = terminal;
  }

  /** Events were missed; the caller reconciles the task. */
  gap(gap: SeqGap): void {
    this.print(formatGap(gap));
    this.entry(gap.server, gap.task_id, '');
  }

  /** The servers' truth: adopts running tasks, settles tracked ones (including SERVER_RESTARTED). */
  reconciled(report: ReconcileReport): void {
    for (const line of formatReport(report)) this.print(line);
    for (const info of [...report.running, ...report.tasks.values()]) this.apply(info);
  }

  /** The tasks still running as far as the app knows: what to reconcile. */
  open(): TrackedTask[] {
    return [...this.tasks.values()]
      .filter((entry) => entry.state === 'running')
      .map(({ server, task_id, tool }) => (tool ? { server, task_id, tool } : { server, task_id }));
  }

  get(server: string, taskId: string): BoardEntry | undefined {
    return this.tasks.get(`${server}/${taskId}`);
  }

  private apply(info: TaskInfo): void {
    const entry = this.entry(info.server, info.task_id, info.tool);
    // A report can be older than an event that arrived meanwhile: a finished task stays finished.
    if (entry.state === 'running') entry.state = info.state;
  }

  private entry(server: string, taskId: string, tool: string): BoardEntry {
    const key = `${server}/${taskId}`;
    let entry = this.tasks.get(key);
    if (!entry) {
      entry = { server, task_id: taskId, tool, state: 'running', lastSeq: 0 };
      this.tasks.set(key, entry);
      if (this.tasks.size > MAX_TASKS) this.forgetOldestFinished();
    }
    if (!entry.tool && tool) entry.tool = tool;
    return entry;
  }

  private forgetOldestFinished(): void {
    for (const [key, entry] of this.tasks) {
      if (entry.state !== 'running') {
        this.tasks.delete(key);
        return;
      }
    }
  }
}
