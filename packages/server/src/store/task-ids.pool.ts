import { RobotMcpKitError } from '@robot-mcp-kit/core';

/** Ids reserved ahead, in one pipelined round trip. */
const POOL_SIZE = 16;
/** The pool is refilled in the background once it holds fewer than this. */
const REFILL_BELOW = POOL_SIZE / 2;
/** A reserved id unused for this long is dropped (at most half its reservation's life). */
const MAX_AGE_MS = 60_000;
/** Ids drawn for one start before it gives up (each taken by another replica). */
export const MAX_ID_ATTEMPTS = 100;

/** What the pool draws and reserves ids with. */
export interface TaskIdPoolParts {
  /** A new id (the TaskManager's generator). */
  readonly draw: () => string;
  /** `SET id:<id> NX` in the store: true when this replica now holds the id. */
  readonly reserve: (taskId: string) => Promise<boolean>;
  /** How long a reservation lasts unless a task write keeps it (the store's finished-task retention). */
  readonly reservationMs: number;
  /** An id another replica holds (drawn again). */
  readonly clashed: (taskId: string) => void;
}

/**
 * Task ids reserved in the store ahead of the starts that use them, so that a start with
 * `RMK_STORE` takes one at once and waits for one script only (its record's write, which keeps the
 * reservation for as long as the task). Reserved in batches of 16, sent at once (one round trip),
 * refilled in the background at half; an id unused for half its reservation's life (at most 60 s)
 * is dropped unused (its reservation expires; ids are 24-bit, so a few spent ones cost nothing).
 * An id whose start was refused comes back ({@link settle}). On close, the ids still held unused
 * are handed back ({@link close}) for the store to release, and so is one whose start is refused
 * after it.
 */
export class TaskIdPool {
  private readonly ready: { id: string; at: number }[] = [];
  /** Ids handed to starts still under way, with when they were reserved (until {@link settle}). */
  private readonly lent = new Map<string, number>();
  private refilling: Promise<number> | undefined;
  private readonly maxAgeMs: number;
  private closed = false;

  constructor(private readonly parts: TaskIdPoolParts) {
    this.maxAgeMs = Math.min(MAX_AGE_MS, parts.reservationMs / 2);
  }

  /**
   * A reserved id. @throws the store's error when it does not answer (the caller uses an id
   * unreserved); RobotMcpKitError TASK_ID_EXHAUSTED after {@link MAX_ID_ATTEMPTS} clashes in a row
   */
  async take(): Promise<string> {
    let clashes = 0;
    while (clashes < MAX_ID_ATTEMPTS) {
      if (this.closed) throw new Error('the task id pool is closed');
      const entry = this.fresh();
      if (entry !== undefined) {
        if (this.ready.length < REFILL_BELOW && !this.closed) this.refill().catch(() => undefined);
        this.lent.set(entry.id, entry.at);
        return entry.id;
      }
      clashes += POOL_SIZE - (await this.refill());
    }
    throw new RobotMcpKitError(
      'TASK_ID_EXHAUSTED',
      `no free task id in ${MAX_ID_ATTEMPTS} draws: every one was reserved by another replica in the task store`,
    );
  }

  /**
   * Stops the pool (a later take throws) and resolves with the ids it holds reserved and unused,
   * once a refill under way answered (or failed): the caller releases their reservations.
   */
  async close(): Promise<string[]> {
    this.closed = true;
    await this.refilling?.catch(() => undefined);
    return this.ready.splice(0).map((entry) => entry.id);
  }

  /**
   * The start that took `taskId` is over: `used` when a task now has it. An unused one (the start
   * was refused: busy, over its limit, shutting down) is still reserved by this replica: it goes
   * back to the front of the pool, or, once the pool closed, is answered `release` for the caller
   * to release. `unknown`: not an id this pool lent.
   */
  settle(taskId: string, used: boolean): 'done' | 'pooled' | 'release' | 'unknown' {
    const at = this.lent.get(taskId);
    if (at === undefined) return 'unknown';
    this.lent.delete(taskId);
    if (used) return 'done';
    if (this.closed) return 'release';
    this.ready.unshift({ id: taskId, at });
    return 'pooled';
  }

  private fresh(): { id: string; at: number } | undefined {
    const now = performance.now();
    while (this.ready.length > 0) {
      const next = this.ready.shift()!;
      if (now - next.at < this.maxAgeMs) return next;
    }
    return undefined;
  }

  /** One batch reserved (one refill at a time); resolves with how many ids it added. */
  private refill(): Promise<number> {
    this.refilling ??= this.reserveBatch().finally(() => {
      this.refilling = undefined;
    });
    return this.refilling;
  }

  private async reserveBatch(): Promise<number> {
    const drawn = Array.from({ length: POOL_SIZE }, () => this.parts.draw());
    const at = performance.now(); // before the round trip: the age errs on the safe side
    const held = await Promise.all(drawn.map((id) => this.parts.reserve(id)));
    let added = 0;
    drawn.forEach((id, i) => {
      if (!held[i]) return this.parts.clashed(id);
      this.ready.push({ id, at });
      added += 1;
    });
    return added;
  }
}
