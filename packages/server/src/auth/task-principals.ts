import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/** Principals remembered for tasks, at most this many (oldest forgotten first). */
export const MAX_TASK_PRINCIPALS = 10_000;

/**
 * Who started which task. The HTTP listener binds each authenticated session to its principal (the
 * token's `clientId`); the app records the principal of every task a session starts. Kept in the
 * server only: the TaskInfo and event JSON of the wire contract do not change.
 */
export class TaskPrincipals {
  private readonly sessions = new Map<string, string>();
  private readonly tasks = new Map<string, string>();

  /** The principal of a session's requests. */
  bindSession(sessionId: string, auth: AuthInfo | undefined): void {
    if (auth) this.sessions.set(sessionId, auth.clientId);
  }

  /** The principal bound to a session, if it authenticated. */
  ofSession(sessionId: string): string | undefined {
    return this.sessions.get(sessionId);
  }

  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Records the principal of the session that started a task; returns it. */
  recordTask(taskId: string, sessionId: string): string | undefined {
    const principal = this.sessions.get(sessionId);
    if (principal === undefined) return undefined;
    this.tasks.set(taskId, principal);
    if (this.tasks.size > MAX_TASK_PRINCIPALS) {
      const oldest = this.tasks.keys().next().value;
      if (oldest !== undefined) this.tasks.delete(oldest);
    }
    return principal;
  }

  /** The principal that started a task (undefined for unauthenticated transports). */
  ofTask(taskId: string): string | undefined {
    return this.tasks.get(taskId);
  }
}
