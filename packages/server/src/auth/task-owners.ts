import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import { ANONYMOUS_SCOPE } from '@robot-mcp-kit/core/store';
import { type TaskProjection } from '../task-views/task-projection.js';

export { MAX_FINISHED_OWNERS } from '../task-views/task-projection.js';

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

/**
 * The one record of who owns what on this server. Sessions: the HTTP listener binds each
 * authenticated session to its principal (the token's `clientId`), read by the starter when it
 * puts the task's origin in the start. Tasks: fed from the TaskManager's `started` changes (their
 * origin) by the one `TaskProjection`, which session clean-up, list scoping and the
 * principal checks all read. Kept in the server only: the TaskInfo and event JSON of the wire
 * contract do not change.
 */
export class TaskOwners {
  private readonly sessions = new Map<string, string>();

  /**
   * @param tasks the app's one task projection, where the tasks' owners are recorded (without one,
   *   only sessions are bound: an HTTP listener on its own)
   */
  constructor(private readonly tasks?: TaskProjection) {}

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

  /**
   * Keeps the task projection recording (the origin of every task started with one) and logs the
   * principal of each authenticated start; returns the function that stops.
   */
  observe(logger?: Logger): () => void {
    const { tasks } = this;
    if (!tasks) return () => undefined;
    return tasks.subscribe((change) => {
      if (change.kind !== 'started') return;
      const principal = change.origin?.principal;
      if (principal !== undefined) logger?.info('task started', { task_id: change.taskId, principal });
    });
  }

  /**
   * Who started a task: running, or among the last `MAX_FINISHED_OWNERS` (10,000) finished tasks of an
   * authenticated session (a finished task's owner matters only for its principal).
   */
  ownerOf(taskId: string): TaskOwner | undefined {
    const task = this.tasks?.get(taskId);
    return task && { sessionId: task.sessionId, principal: task.principal };
  }

  /** The principal that started a task (undefined for unauthenticated transports). */
  ofTask(taskId: string): string | undefined {
    return this.tasks?.get(taskId)?.principal;
  }

  /** Running task ids started by `sessionId`. */
  runningOfSession(sessionId: string): string[] {
    return (this.tasks?.list({ sessionId, status: 'running' }) ?? []).map((task) => task.taskId);
  }
}
