import { type Logger, RobotMcpKitError, systemClock } from '@robot-mcp-kit/core';
import {
  type CarriedTaskWrite,
  REPLICA_FENCED,
  type StoredTask,
  type TaskStore,
} from '@robot-mcp-kit/core/store';
import { Backoff, pause, waitAtMost } from '@robot-mcp-kit/core/support';

/** First pause before a failed store write is retried; doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

/** An outbox append run in its task's write order, given the write it carries (if any). */
export type CarriedAppend = (write: CarriedTaskWrite | undefined) => Promise<void>;

/** The newest state of one task still to be written, and whether a write is under way. */
interface PendingWrite {
  next: StoredTask | undefined;
  /** Outbox appends of the task waiting their turn; the first carries `next` (one script). */
  appends: CarriedAppend[];
  running: Promise<void> | undefined;
  retry: Backoff;
  /** A write failed and waits for its retry: appends meanwhile go out at once, carrying nothing. */
  failing: boolean;
  /** The `lastSeq` of the newest state written so far (-1: none written yet). */
  storedSeq: number;
  /** Callers waiting for a seq to be stored (see `seqStored`), released as writes land. */
  seqWaiters: SeqWaiter[];
}

/** A caller of `seqStored` waiting for its task's state to be written with at least `seq`. */
interface SeqWaiter {
  readonly seq: number;
  readonly release: () => void;
}

/**
 * The task store writes of one replica, per task: ordered and coalesced (at most one in flight and
 * the newest pending, so memory is one entry per task), each outbox append of the task run in that
 * order and the first of them carrying the newest state (one script). A failed write is logged,
 * counted and retried with a growing pause, never thrown; a fenced one is not retried.
 */
export class TaskWriteQueue {
  private readonly writes = new Map<string, PendingWrite>();
  /** Writes that failed (each retried). */
  failures = 0;

  /** `storeOf()`: the connected store, or undefined once closed (a retry loop then ends). */
  constructor(
    private readonly storeOf: () => TaskStore | undefined,
    private readonly logger: Logger,
  ) {}

  /** Writes `entry` as its task's newest state (after the write under way, if any). */
  schedule(entry: StoredTask, store: TaskStore): void {
    const taskId = entry.task.task_id;
    const pending = this.pendingOf(taskId);
    pending.next = entry;
    if (!pending.running) pending.running = this.drain(taskId, pending, store);
  }

  /**
   * Runs an outbox append of `taskId` in the task's write order, carrying the task's newest
   * unwritten state: one script, one round trip. Appends wait behind a write under way of the same
   * task, then go together (pipelined on one connection, the first carrying the state). Undefined
   * when the store cannot carry its writes or holds no fencing token yet.
   */
  carryAppend(taskId: string, append: CarriedAppend): Promise<void> | undefined {
    const store = this.storeOf();
    if (!store?.carriedWrite || !store.fencingToken?.()) return undefined;
    const pending = this.pendingOf(taskId);
    if (pending.failing) return append(undefined); // an outage: as before, no wait on the state
    return new Promise<void>((resolve, reject) => {
      pending.appends.push((write) => append(write).then(resolve, reject));
      // the event's state is scheduled right after this (same tick); a relayed one has none
      queueMicrotask(() => {
        if (!pending.running && this.writes.get(taskId) === pending) {
          pending.running = this.drain(taskId, pending, store);
        }
      });
    });
  }

  /** Resolves once the task's current state reached the store (at once when nothing is pending). */
  private async whenWritten(taskId: string): Promise<void> {
    for (let pending = this.writes.get(taskId); pending?.running; pending = this.writes.get(taskId)) {
      await pending.running;
    }
  }

  /**
   * Resolves once the task's state was written with `lastSeq` at least `seq` (`0`: any state, the
   * start barrier) — at once when nothing of the task is pending — or after `waitMs`; says whether
   * in time. Unlike {@link whenWritten} it does not wait for the writes of later events: a task
   * that reports without pause holds back neither its start's answer nor an earlier event.
   */
  async seqStored(taskId: string, seq: number, waitMs: number): Promise<boolean> {
    const pending = this.writes.get(taskId);
    if (!pending || pending.storedSeq >= seq) return true;
    let release: () => void = () => undefined;
    const stored = new Promise<void>((resolve) => (release = resolve));
    const waiter: SeqWaiter = { seq, release };
    pending.seqWaiters.push(waiter);
    const inTime = await waitAtMost(stored, systemClock, waitMs);
    const at = inTime ? -1 : pending.seqWaiters.indexOf(waiter);
    if (at >= 0) pending.seqWaiters.splice(at, 1);
    return inTime;
  }

  /** Resolves once each task's writes settled (every task's when `taskIds` is omitted), or after `waitMs`. */
  async settled(taskIds: readonly string[] | undefined, waitMs: number): Promise<boolean> {
    const ids = taskIds ?? [...this.writes.keys()];
    return waitAtMost(Promise.all(ids.map((id) => this.whenWritten(id))), systemClock, waitMs);
  }

  private pendingOf(taskId: string): PendingWrite {
    let pending = this.writes.get(taskId);
    if (!pending) {
      pending = {
        next: undefined,
        appends: [],
        running: undefined,
        retry: new Backoff(FIRST_RETRY_MS, MAX_RETRY_MS),
        failing: false,
        storedSeq: -1,
        seqWaiters: [],
      };
      this.writes.set(taskId, pending);
    }
    return pending;
  }

  /**
   * Writes the newest pending state, with the appends waiting (see `carryAppend`), until none
   * is left; retries a failed write after a pause.
   */
  private async drain(taskId: string, pending: PendingWrite, store: TaskStore): Promise<void> {
    while (pending.next || pending.appends.length > 0) {
      const entry = pending.next;
      pending.next = undefined;
      try {
        await writeWith(store, entry, pending.appends.splice(0));
        pending.retry.reset();
        if (entry) stored(pending, entry.lastSeq);
      } catch (error) {
        if (error instanceof RobotMcpKitError && error.code === REPLICA_FENCED) {
          this.logger.warn(error.message, { task_id: taskId }); // refused for good: not retried
          break;
        }
        pending.next ??= entry;
        await this.pauseAfter(taskId, pending, error);
        if (this.storeOf() !== store) break;
      }
    }
    // refused for good (fenced) or closed: what still waits goes out carrying nothing
    for (const append of pending.appends.splice(0)) void append(undefined);
    pending.running = undefined;
    for (const waiter of pending.seqWaiters.splice(0)) waiter.release(); // settled: as whenWritten
    if (this.writes.get(taskId) === pending && !pending.next) this.writes.delete(taskId);
  }

  /** A failed write: counted, logged, the appends waiting sent carrying nothing, then the retry pause. */
  private async pauseAfter(taskId: string, pending: PendingWrite, error: unknown): Promise<void> {
    this.failures += 1;
    this.logger.warn('task store write failed; retrying', {
      task_id: taskId,
      retry_ms: pending.retry.currentMs,
      write_errors: this.failures,
      error: error instanceof Error ? error.message : String(error),
    });
    const pauseMs = pending.retry.next();
    pending.failing = true;
    for (const append of pending.appends.splice(0)) void append(undefined);
    await pause(systemClock, pauseMs);
    pending.failing = false;
  }
}

/** Records that the task's state with `seq` was written, releasing the callers waiting for it. */
function stored(pending: PendingWrite, seq: number): void {
  if (seq > pending.storedSeq) pending.storedSeq = seq;
  if (pending.seqWaiters.length === 0) return;
  const waiting: SeqWaiter[] = [];
  for (const waiter of pending.seqWaiters) {
    if (waiter.seq <= pending.storedSeq) waiter.release();
    else waiting.push(waiter);
  }
  pending.seqWaiters = waiting;
}

/**
 * Writes `entry` (if any) and runs `appends` in order: the first carries the write in its script
 * (all sent at once, on the outbox's one connection, so Redis runs them in this order), else a
 * plain put. Rejects when the write failed or was refused (fenced).
 */
async function writeWith(
  store: TaskStore,
  entry: StoredTask | undefined,
  appends: readonly CarriedAppend[],
): Promise<void> {
  if (appends.length === 0 || !entry || !store.carriedWrite) {
    try {
      if (entry) await store.put(entry);
    } finally {
      await Promise.allSettled(appends.map((append) => append(undefined)));
    }
    return;
  }
  const write = store.carriedWrite(entry);
  await Promise.allSettled(appends.map((append, i) => append(i === 0 ? write : undefined)));
  // an append that never reached Redis (the outbox closed): the write failed, retried as a put
  write.settle({ error: new Error('the outbox append carrying the task write did not run') });
  await write.done;
}
