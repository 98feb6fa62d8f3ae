import { type EventOutbox, type OutboxRecord } from './event-outbox.port.js';

/**
 * The in-memory adapter of {@link EventOutbox}, for tests: share one between two posters to play
 * a restart (the second poster's `open()` takes over what the first left behind). It does not
 * survive the process; a poster without an outbox needs none of this.
 */
export class InMemoryEventOutbox implements EventOutbox {
  readonly description = 'in-memory outbox';
  /** Undelivered records by event_id, in append order. */
  private readonly records = new Map<string, OutboxRecord>();
  /** Events being delivered by a running poster (not handed over by `start`). */
  private readonly owned = new Set<string>();
  /** When set, `append` rejects with it (to test a store outage). */
  failWith: Error | undefined;

  /** The undelivered records, in append order. */
  get pending(): readonly OutboxRecord[] {
    return [...this.records.values()];
  }

  append(record: OutboxRecord): Promise<void> {
    if (this.failWith) return Promise.reject(this.failWith);
    this.records.set(record.event.event_id, record);
    this.owned.add(record.event.event_id);
    return Promise.resolve();
  }

  ack(eventId: string): Promise<void> {
    this.records.delete(eventId);
    this.owned.delete(eventId);
    return Promise.resolve();
  }

  /** Hands over every record no running poster owns (all of them, after {@link orphanAll}). */
  start(deliver: (records: readonly OutboxRecord[]) => void): Promise<void> {
    const orphans = [...this.records.values()].filter((r) => !this.owned.has(r.event.event_id));
    for (const record of orphans) this.owned.add(record.event.event_id);
    if (orphans.length > 0) deliver(orphans);
    return Promise.resolve();
  }

  /** Plays the death of the poster that owns the records: the next `start` takes them all over. */
  orphanAll(): void {
    this.owned.clear();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
