import { type ServerResponse } from 'node:http';
import { type Clock, type TimerHandle } from '@robot-mcp-kit/core';

/**
 * Tracks the open HTTP requests of each session and closes a session that had none for `idleMs`
 * (undefined: never).
 */
export class IdleSessions {
  private readonly state = new Map<string, { open: number; timer: TimerHandle | undefined }>();

  constructor(
    private readonly idleMs: number | undefined,
    private readonly clock: Clock,
    private readonly expire: (sessionId: string) => void,
  ) {}

  /** A request of `sessionId` is open until `res` closes. */
  begin(sessionId: string, res: ServerResponse): void {
    if (this.idleMs === undefined) return;
    let entry = this.state.get(sessionId);
    if (!entry) {
      entry = { open: 0, timer: undefined };
      this.state.set(sessionId, entry);
    }
    const tracked = entry;
    tracked.open += 1;
    this.clear(tracked);
    res.once('close', () => {
      tracked.open -= 1;
      if (tracked.open > 0 || this.state.get(sessionId) !== tracked) return;
      tracked.timer = this.clock.setTimeout(() => {
        tracked.timer = undefined;
        if (tracked.open === 0 && this.state.get(sessionId) === tracked) this.expire(sessionId);
      }, this.idleMs ?? 0);
    });
  }

  forget(sessionId: string): void {
    const entry = this.state.get(sessionId);
    if (entry) this.clear(entry);
    this.state.delete(sessionId);
  }

  close(): void {
    for (const id of [...this.state.keys()]) this.forget(id);
  }

  private clear(entry: { timer: TimerHandle | undefined }): void {
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    entry.timer = undefined;
  }
}
