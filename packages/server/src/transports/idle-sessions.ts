import { type ServerResponse } from 'node:http';
import { type Clock, type TimerHandle } from '@robot-mcp-kit/core';

interface Activity {
  /** Open HTTP requests of the session (calls in flight, GET streams). */
  open: number;
  /** When its last request closed (clock ms). */
  idleSince: number;
  timer: TimerHandle | undefined;
}

/**
 * Tracks the open HTTP requests of each streamable-HTTP session: closes a session that had none
 * for `idleMs` (undefined: never), and names the session idle longest for eviction at the cap.
 * Idle sessions are kept in a Map in the order they went idle, so the longest-idle one is its
 * first entry (O(1), whatever the number of sessions).
 */
export class IdleSessions {
  private readonly state = new Map<string, Activity>();
  /** Sessions with no open request, longest idle first. */
  private readonly idle = new Map<string, Activity>();

  constructor(
    private readonly idleMs: number | undefined,
    private readonly clock: Clock,
    private readonly expire: (sessionId: string) => void,
  ) {}

  /** A request of `sessionId` is open until `res` closes. */
  begin(sessionId: string, res: ServerResponse): void {
    let entry = this.state.get(sessionId);
    if (!entry) {
      entry = { open: 0, idleSince: this.clock.now(), timer: undefined };
      this.state.set(sessionId, entry);
    }
    const tracked = entry;
    tracked.open += 1;
    this.idle.delete(sessionId);
    this.clear(tracked);
    res.once('close', () => {
      tracked.open -= 1;
      if (tracked.open > 0 || this.state.get(sessionId) !== tracked) return;
      tracked.idleSince = this.clock.now();
      this.idle.set(sessionId, tracked);
      if (this.idleMs === undefined) return;
      tracked.timer = this.clock.setTimeout(() => {
        tracked.timer = undefined;
        if (tracked.open === 0 && this.state.get(sessionId) === tracked) this.expire(sessionId);
      }, this.idleMs);
    });
  }

  /** The session with no open request that has been idle longest, and for how long (ms). */
  longestIdle(): { sessionId: string; idleMs: number } | undefined {
    for (const [sessionId, entry] of this.idle) {
      return { sessionId, idleMs: Math.max(0, this.clock.now() - entry.idleSince) };
    }
    return undefined;
  }

  forget(sessionId: string): void {
    const entry = this.state.get(sessionId);
    if (entry) this.clear(entry);
    this.state.delete(sessionId);
    this.idle.delete(sessionId);
  }

  close(): void {
    for (const id of [...this.state.keys()]) this.forget(id);
  }

  private clear(entry: { timer: TimerHandle | undefined }): void {
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    entry.timer = undefined;
  }
}
