import { type Clock, RobotMcpKitError, type TaskEvent } from '@robot-mcp-kit/core';
import {
  type FeedEntry,
  type FeedFilter,
  type FeedItem,
  type LostEntry,
  matchesFilter,
  taskIdOf,
} from './feed-entry.js';

/** A `since` cursor the feed cannot read from. */
export class FeedCursorError extends RobotMcpKitError {
  constructor(since: number, newest: number) {
    super(
      'CURSOR_INVALID',
      `since ${since} is ahead of the newest cursor ${newest}; the server may have restarted and its feed ` +
        'started over. Call get_events without since to read what the feed holds.',
    );
  }
}

/** The result of {@link EventFeed.read}. */
export interface FeedPage {
  readonly entries: FeedItem[];
  /** Pass as `since` next time: the cursor of the last entry returned, or where the read started. */
  readonly cursor: number;
  /** More entries follow (the limit cut the page short). */
  readonly more: boolean;
}

/** What a wait looks for and how long. */
export interface WaitRequest {
  /** Entries after this cursor are considered. */
  readonly start: number;
  readonly filter: FeedFilter;
  readonly timeoutMs: number;
  /** Ends the wait with `aborted` (request cancelled, session closed). */
  readonly signal?: AbortSignal;
  /** Checked when nothing in the feed matches yet: true ends the wait with `ended`. */
  readonly alreadyEnded?: () => boolean;
}

/** How a wait ended. */
export type WaitOutcome =
  | { readonly kind: 'entry'; readonly entry: FeedItem }
  | { readonly kind: 'timeout' | 'ended' | 'aborted' | 'closed' };

interface Waiter {
  readonly filter: FeedFilter;
  settle(outcome: WaitOutcome): void;
}

/**
 * A bounded in-memory ring of feed entries with cursors (1, 2, 3, ...). Readers pass the cursor
 * they last saw; entries overwritten before they were read come back as one `lost` entry with a
 * count, never silently skipped. Waits see every entry appended while they wait.
 */
export class EventFeed {
  private readonly ring: (FeedEntry | undefined)[];
  private last = 0;
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(
    readonly capacity: number,
    private readonly clock: Clock,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a whole number >= 1');
    this.ring = new Array<FeedEntry | undefined>(capacity);
  }

  /** Cursor of the newest entry; 0 while the feed is empty. */
  get newest(): number {
    return this.last;
  }

  /** Cursor of the oldest entry still held (newest + 1 while empty). */
  get oldest(): number {
    return Math.max(1, this.last - this.capacity + 1);
  }

  /** Number of waits in progress. */
  get waiting(): number {
    return this.waiters.size;
  }

  appendEvent(event: TaskEvent): FeedEntry {
    return this.put({ cursor: this.last + 1, kind: 'event', event: event.toJSON() });
  }

  appendCancelled(taskId: string, tool: string, atMs: number): FeedEntry {
    return this.append((cursor) => ({
      cursor,
      kind: 'cancelled',
      task_id: taskId,
      tool,
      ts: new Date(atMs).toISOString(),
    }));
  }

  appendUnrecognisedTriggers(
    taskId: string,
    tool: string,
    types: readonly string[],
    known: readonly string[],
    atMs: number,
  ): FeedEntry {
    return this.append((cursor) => ({
      cursor,
      kind: 'unrecognised_triggers',
      task_id: taskId,
      tool,
      types,
      known_trigger_types: known,
      ts: new Date(atMs).toISOString(),
    }));
  }

  /** The entry at `cursor`, if still held. */
  at(cursor: number): FeedEntry | undefined {
    const entry = this.ring[cursor % this.capacity];
    return entry?.cursor === cursor ? entry : undefined;
  }

  /**
   * Up to `limit` entries after `since` (default: from the oldest held), preceded by a `lost` entry
   * when entries after `since` were already overwritten. With `visible`, entries of tasks it refuses
   * are skipped (the cursor still moves past them).
   * @throws FeedCursorError when `since` is ahead of the newest cursor
   */
  read(since: number | undefined, limit: number, visible?: (taskId: string) => boolean): FeedPage {
    const from = since ?? this.oldest - 1;
    this.checkCursor(from);
    const entries: FeedItem[] = [];
    let cursor = from;
    const lost = this.lostAfter(from);
    if (lost) {
      entries.push(lost);
      cursor = lost.cursor;
    }
    while (entries.length < limit && cursor < this.last) {
      cursor += 1;
      const entry = this.at(cursor);
      if (entry && (!visible || visible(taskIdOf(entry)))) entries.push(entry);
    }
    return { entries, cursor, more: cursor < this.last };
  }

  /**
   * Resolves with the first entry after `start` that matches the filter — already in the feed or
   * appended later — or a `lost` entry when entries after `start` were overwritten, or `ended`,
   * `timeout` (on the clock), `aborted` (signal) or `closed`.
   * @throws FeedCursorError when `start` is ahead of the newest cursor
   */
  wait(request: WaitRequest): Promise<WaitOutcome> {
    this.checkCursor(request.start);
    const lost = this.lostAfter(request.start);
    if (lost) return Promise.resolve({ kind: 'entry', entry: lost });
    for (let cursor = request.start + 1; cursor <= this.last; cursor += 1) {
      const entry = this.at(cursor);
      if (entry && matchesFilter(entry, request.filter)) return Promise.resolve({ kind: 'entry', entry });
    }
    if (this.closed) return Promise.resolve({ kind: 'closed' });
    if (request.alreadyEnded?.()) return Promise.resolve({ kind: 'ended' });
    if (request.signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    if (request.timeoutMs <= 0) return Promise.resolve({ kind: 'timeout' });
    return new Promise<WaitOutcome>((resolve) => {
      const onAbort = (): void => waiter.settle({ kind: 'aborted' });
      const timer = this.clock.setTimeout(() => waiter.settle({ kind: 'timeout' }), request.timeoutMs);
      const waiter: Waiter = {
        filter: request.filter,
        settle: (outcome) => {
          if (!this.waiters.delete(waiter)) return;
          this.clock.clearTimeout(timer);
          request.signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      };
      this.waiters.add(waiter);
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Ends every wait with `closed`; later waits end at once. Entries stay readable. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.settle({ kind: 'closed' });
  }

  private append(make: (cursor: number) => FeedEntry): FeedEntry {
    return this.put(make(this.last + 1));
  }

  /** Stores `entry` (its cursor is the next one) and wakes the waits it matches. */
  private put(entry: FeedEntry): FeedEntry {
    this.last += 1;
    this.ring[this.last % this.capacity] = entry;
    if (this.waiters.size === 0) return entry;
    for (const waiter of [...this.waiters]) {
      if (matchesFilter(entry, waiter.filter)) waiter.settle({ kind: 'entry', entry });
    }
    return entry;
  }

  private lostAfter(since: number): LostEntry | undefined {
    const missing = this.oldest - 1 - since;
    return missing > 0 ? { cursor: this.oldest - 1, kind: 'lost', count: missing } : undefined;
  }

  private checkCursor(since: number): void {
    if (since > this.last) throw new FeedCursorError(since, this.last);
  }
}
