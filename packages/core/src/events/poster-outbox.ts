import { ConfigError } from '../errors/kit.error.js';
import { type LogMeta } from '../logging/logger.js';
import { errorText, idsOf } from './delivery-log.js';
import { type EventOutbox } from './event-outbox.port.js';
import { type QueuedEvent } from './event-queue.js';

/** Counters of a poster's outbox (see `EventPoster.outboxStats`). */
export interface OutboxStats {
  /** Events written durably before `post`'s promise resolved. */
  written: number;
  /** Appends the outbox refused (e.g. Redis down): those events went out from memory only. */
  writeErrors: number;
  /** Events removed from the outbox once delivered or given up. */
  acked: number;
  /** Removals the outbox refused (the event stays there and may be delivered again, same event_id). */
  ackErrors: number;
  /** Events taken over from the outbox (left by a dead replica or a former life of this one). */
  recovered: number;
}

type Log = (level: 'error' | 'warn' | 'debug', message: string, meta: LogMeta) => void;

const LOG_EVERY_MS = 10_000;

/** The poster's side of an {@link EventOutbox}: writes, removals, their failures logged and counted. */
export class PosterOutbox {
  readonly counts: OutboxStats = { written: 0, writeErrors: 0, acked: 0, ackErrors: 0, recovered: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private lastLogAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly outbox: EventOutbox,
    private readonly log: Log,
  ) {
    if (
      typeof outbox !== 'object' ||
      outbox === null ||
      typeof outbox.append !== 'function' ||
      typeof outbox.ack !== 'function' ||
      typeof outbox.start !== 'function'
    ) {
      throw new ConfigError(
        'outbox',
        'must be an EventOutbox (append, ack, start, close), e.g. from createRedisEventOutbox(), or left out for the in-memory default',
      );
    }
  }

  /** Appends the entry; the promise resolves once written or refused (never rejects). */
  append(entry: QueuedEvent, postedAtMs: number): Promise<void> {
    let written: Promise<void>;
    try {
      written = this.outbox.append({ event: entry.event, body: entry.body, postedAtMs });
    } catch (err) {
      written = Promise.reject(err);
    }
    const settled = written.then(
      () => {
        this.counts.written += 1;
      },
      (err: unknown) => {
        this.counts.writeErrors += 1;
        this.failed('event outbox refused a write; the event is delivered from memory only', entry, err);
      },
    );
    return this.track(settled);
  }

  /** Removes a delivered or given-up entry from the outbox, in the background. */
  ack(entry: QueuedEvent): void {
    let done: Promise<void>;
    try {
      done = this.outbox.ack(entry.event.event_id);
    } catch (err) {
      done = Promise.reject(err);
    }
    void this.track(
      done.then(
        () => {
          this.counts.acked += 1;
        },
        (err: unknown) => {
          this.counts.ackErrors += 1;
          this.failed('event outbox refused a removal; the event may be delivered again', entry, err);
        },
      ),
    );
  }

  /** Waits for the writes and removals under way, then closes the outbox. */
  async close(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    try {
      await this.outbox.close();
    } catch (err) {
      this.log('warn', 'event outbox failed to close', { error: errorText(err) });
    }
  }

  private track(promise: Promise<void>): Promise<void> {
    this.inFlight.add(promise);
    void promise.then(() => this.inFlight.delete(promise));
    return promise;
  }

  /** Logs at most one error per 10 s, with the counters so far. */
  private failed(message: string, entry: QueuedEvent, err: unknown): void {
    const now = Date.now();
    if (now - this.lastLogAt < LOG_EVERY_MS) return;
    this.lastLogAt = now;
    this.log('error', message, {
      ...idsOf(entry.event),
      outbox: this.outbox.description,
      error: errorText(err),
      write_errors: this.counts.writeErrors,
      ack_errors: this.counts.ackErrors,
    });
  }
}
