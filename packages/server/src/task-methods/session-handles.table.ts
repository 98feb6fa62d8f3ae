import { type Clock, type TaskInfo, type TimerHandle } from '@robot-mcp-kit/core';
import { type TaskRetention } from '../task-views/task-status.mapper.js';
import { type SessionContext } from '../tools/registered-tool.js';
import { InvalidTaskCursorError, TaskWaitAbortedError } from './task-method.errors.js';
import { type TaskHandle } from './task-handle.policy.js';

/** One task created over the MCP 2025-11-25 protocol (a task-augmented tools/call, SEP-1686). */
export interface SessionHandle extends TaskHandle {
  /** The wire `taskId`: the kit's task id itself. */
  readonly handle: string;
  readonly taskId: string;
  /** The session that created it; tasks/* of other sessions cannot see it. */
  readonly session: SessionContext;
  /** Creation order, for cursors. */
  readonly seq: number;
  /** The terminal snapshot, once the task finished (kept even if the TaskManager evicts it). */
  final?: TaskInfo;
  /** Due when the TTL after the end has elapsed. */
  expiry?: TimerHandle;
  /** tasks/result requests waiting for the end (created by the first one). */
  waiters?: Set<() => void>;
}

/** A page of one session's tasks. */
export interface NativeTaskPage {
  readonly entries: readonly SessionHandle[];
  readonly nextCursor?: string;
}

const CURSOR_PREFIX = 'after:';

/**
 * The SEP-1686 task handles of every session (the session-bound handle table of the task methods): who created them, their TTL, their final snapshot, and
 * the tasks/result requests waiting on them. A task's TTL runs from its end (a running task never
 * expires); at expiry it is dropped here and `onExpire` tells the owner. Memory is bounded by
 * `maxTasks`: beyond it, the tasks that finished first expire early.
 *
 * Every operation on one task is O(1): the finished tasks are kept apart, in the order they
 * finished, so making room never walks the running ones; each session's tasks are kept apart, so
 * listing or closing a session walks only its own.
 */
export class SessionHandleTable {
  private readonly entries = new Map<string, SessionHandle>();
  /** The finished entries still held, in the order they finished (the first one goes first). */
  private readonly finished = new Map<string, SessionHandle>();
  private readonly sessions = new Map<SessionContext, Map<string, SessionHandle>>();
  private nextSeq = 1;

  constructor(
    private readonly clock: Clock,
    private readonly maxTasks: number,
    private readonly onExpire: (entry: SessionHandle) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `taskId`, created once (later calls return the existing one). */
  ensure(taskId: string, session: SessionContext, retention: TaskRetention): SessionHandle {
    const existing = this.entries.get(taskId);
    if (existing) return existing;
    const entry: SessionHandle = {
      handle: taskId,
      taskId,
      session,
      seq: this.nextSeq++,
      ttl: retention.ttl,
      pollInterval: retention.pollInterval,
    };
    this.entries.set(taskId, entry);
    const own = this.sessions.get(session);
    if (own) own.set(taskId, entry);
    else this.sessions.set(session, new Map([[taskId, entry]]));
    this.enforceCapacity();
    return entry;
  }

  /** The entry of `taskId` if `session` created it. */
  get(taskId: string, session: SessionContext): SessionHandle | undefined {
    const entry = this.entries.get(taskId);
    return entry && entry.session === session ? entry : undefined;
  }

  /** Any session's entry (for the TaskManager listener). */
  find(taskId: string): SessionHandle | undefined {
    return this.entries.get(taskId);
  }

  /** Records the end of a task: keeps its snapshot, starts its TTL, releases its waiters. */
  finish(entry: SessionHandle, info: TaskInfo): void {
    if (entry.final) return;
    entry.final = info;
    if (this.entries.get(entry.taskId) !== entry) return;
    this.finished.set(entry.taskId, entry);
    entry.expiry = this.clock.setTimeout(() => this.expire(entry), entry.ttl);
    this.release(entry);
  }

  /** Resolves once the task ended or was dropped; rejects if `signal` aborts first. */
  waitForEnd(entry: SessionHandle, signal: AbortSignal): Promise<void> {
    if (entry.final || this.entries.get(entry.taskId) !== entry) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiters = (entry.waiters ??= new Set());
      const done = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        waiters.delete(done);
        reject(new TaskWaitAbortedError(entry.taskId));
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      waiters.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** One page of `session`'s tasks in creation order, starting after `cursor`. */
  page(session: SessionContext, cursor: string | undefined, size: number): NativeTaskPage {
    const after = cursor === undefined ? 0 : decodeCursor(cursor);
    const entries: SessionHandle[] = [];
    let more = false;
    for (const entry of this.sessions.get(session)?.values() ?? []) {
      if (entry.seq <= after) continue;
      if (entries.length === size) {
        more = true;
        break;
      }
      entries.push(entry);
    }
    const last = entries[entries.length - 1];
    return more && last ? { entries, nextCursor: encodeCursor(last.seq) } : { entries };
  }

  /** Drops one entry (no expiry callback). */
  remove(entry: SessionHandle): void {
    if (this.entries.get(entry.taskId) === entry) this.drop(entry);
  }

  /** Drops every entry of a closed session (its tasks run on; only the protocol view goes). */
  dropSession(session: SessionContext): void {
    const own = this.sessions.get(session);
    if (own) for (const entry of [...own.values()]) this.drop(entry);
  }

  /** Drops everything and stops every timer (shutdown). */
  clear(): void {
    for (const entry of [...this.entries.values()]) this.drop(entry);
  }

  private expire(entry: SessionHandle): void {
    if (this.entries.get(entry.taskId) !== entry) return;
    this.drop(entry);
    this.onExpire(entry);
  }

  private drop(entry: SessionHandle): void {
    this.entries.delete(entry.taskId);
    this.finished.delete(entry.taskId);
    const own = this.sessions.get(entry.session);
    own?.delete(entry.taskId);
    if (own?.size === 0) this.sessions.delete(entry.session);
    if (entry.expiry !== undefined) this.clock.clearTimeout(entry.expiry);
    entry.expiry = undefined;
    this.release(entry);
  }

  private release(entry: SessionHandle): void {
    const waiters = entry.waiters;
    if (!waiters || waiters.size === 0) return;
    entry.waiters = undefined;
    for (const wake of waiters) wake();
  }

  /** Expires the earliest-finished entries while over capacity; running ones are never visited. */
  private enforceCapacity(): void {
    while (this.entries.size > this.maxTasks) {
      const first = this.finished.values().next();
      if (first.done) return;
      this.expire(first.value);
    }
  }
}

function encodeCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const seq = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(seq) || seq < 0 || encodeCursor(seq) !== cursor)
    throw new InvalidTaskCursorError(cursor);
  return seq;
}
