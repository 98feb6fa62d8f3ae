import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type Logger, type TaskManager } from '@robot-mcp-kit/core';
import { type TaskChange } from '@robot-mcp-kit/core/host';
import { ANONYMOUS_SCOPE } from '@robot-mcp-kit/core/store';

/** Owners of finished tasks remembered, at most this many (oldest forgotten first). */
export const MAX_FINISHED_OWNERS = 10_000;

/**
 * The scope of a principal: the principal itself, or {@link ANONYMOUS_SCOPE} without authentication.
 * A task's scope is its starter's (the `scope` of its task store record); a caller's is its session's.
 */
export function scopeOf(principal: string | undefined): string {
  return principal ?? ANONYMOUS_SCOPE;
}

/**
 * THE rule of who may see, list and cancel a task — on every replica and every surface (get_task,
 * list_tasks, cancel_task, `tasks://` resources, the 2026 tasks extension; SEP-1686 `tasks/*` narrow
 * it further to the creating session): a caller may iff its scope is the task's scope.
 */
export function mayAccess(callerScope: string, taskScope: string): boolean {
  return callerScope === taskScope;
}

/** Who started a task: the session it came in on and that session's principal, if it authenticated. */
export interface TaskOwner {
  readonly sessionId: string | undefined;
  readonly principal: string | undefined;
}

/** A task's owner, and whether the task finished (its owner is then kept in the ring). */
interface OwnerRecord extends TaskOwner {
  finished: boolean;
}

/**
 * The one record of who owns what on this server. Sessions: the HTTP listener binds each
 * authenticated session to its principal (the token's `clientId`), read by the starter when it
 * puts the task's origin in the start. Tasks: fed from the TaskManager's `started` changes (their
 * origin), so session clean-up, list scoping and the principal checks all read this one map. Kept
 * in the server only: the TaskInfo and event JSON of the wire contract do not change.
 */
export class TaskOwners {
  private readonly sessions = new Map<string, string>();
  private readonly owners = new Map<string, OwnerRecord>();
  /**
   * The last {@link MAX_FINISHED_OWNERS} finished tasks with an owner, a ring: the slot about to be
   * reused holds the oldest, forgotten then (O(1); a Set evicted from its front is not, in V8).
   */
  private readonly finished: (string | undefined)[] = [];
  private nextSlot = 0;

  /** The principal of a session's requests. */
  bindSession(sessionId: string, auth: AuthInfo | undefined): void {
    if (auth) this.sessions.set(sessionId, auth.clientId);
  }

  /** The principal bound to a session, if it authenticated. */
  ofSession(sessionId: string): string | undefined {
    return this.sessions.get(sessionId);
  }

  /** The scope of a session's requests (`scopeOf` its principal). */
  scopeOfSession(sessionId: string): string {
    return scopeOf(this.ofSession(sessionId));
  }

  /**
   * The scope of a task of this replica, as its store record says: `scopeOf` its starter's
   * principal (a task started without one, or forgotten, is anonymous).
   */
  scopeOfTask(taskId: string): string {
    return scopeOf(this.ofTask(taskId));
  }

  /** Whether a caller in `callerScope` may see and cancel this replica's task (`mayAccess`). */
  allows(callerScope: string, taskId: string): boolean {
    return mayAccess(callerScope, this.scopeOfTask(taskId));
  }

  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Records the owner of every task started with an origin; returns the function that stops. */
  observe(taskManager: TaskManager, logger?: Logger): () => void {
    return taskManager.onChange((change) => this.changed(change, logger));
  }

  /**
   * Who started a task: running, or among the last `MAX_FINISHED_OWNERS` (10,000) finished tasks of an
   * authenticated session (a finished task's owner matters only for its principal).
   */
  ownerOf(taskId: string): TaskOwner | undefined {
    const owner = this.owners.get(taskId);
    return owner && { sessionId: owner.sessionId, principal: owner.principal };
  }

  /** The principal that started a task (undefined for unauthenticated transports). */
  ofTask(taskId: string): string | undefined {
    return this.owners.get(taskId)?.principal;
  }

  /** Running task ids started by `sessionId`. */
  runningOfSession(sessionId: string): string[] {
    const ids: string[] = [];
    for (const [taskId, owner] of this.owners)
      if (owner.sessionId === sessionId && !owner.finished) ids.push(taskId);
    return ids;
  }

  private changed(change: TaskChange, logger: Logger | undefined): void {
    const { taskId } = change;
    if (change.kind === 'started') {
      const { sessionId, principal } = change.origin ?? {};
      if (sessionId === undefined && principal === undefined) return;
      this.owners.set(taskId, { sessionId, principal, finished: false });
      if (principal !== undefined) logger?.info('task started', { task_id: taskId, principal });
    } else if (change.kind === 'finished') {
      const owner = this.owners.get(taskId);
      if (!owner || owner.finished) return;
      if (owner.principal === undefined) {
        this.owners.delete(taskId); // only a principal is read after the end (scope checks)
        return;
      }
      owner.finished = true;
      const oldest = this.finished[this.nextSlot];
      if (oldest !== undefined) this.owners.delete(oldest);
      this.finished[this.nextSlot] = taskId;
      this.nextSlot = (this.nextSlot + 1) % MAX_FINISHED_OWNERS;
    }
  }
}
