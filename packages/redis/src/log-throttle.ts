/** How often one kind of Redis trouble is logged at most: one outage is a line per 10 s, not per call. */
export const WARN_EVERY_MS = 10_000;

/**
 * Says whether a log line of one kind may be written now — at most once per `everyMs` per kind —
 * so the Redis adapters count every occurrence but log each kind of trouble only now and then.
 */
export class LogThrottle {
  private readonly lastAt = new Map<string, number>();

  constructor(private readonly everyMs: number = WARN_EVERY_MS) {}

  /** True (and the kind's clock restarted) when `kind` was not logged in the last `everyMs`. */
  due(kind: string, now: number = Date.now()): boolean {
    if (now - (this.lastAt.get(kind) ?? Number.NEGATIVE_INFINITY) < this.everyMs) return false;
    this.lastAt.set(kind, now);
    return true;
  }
}
