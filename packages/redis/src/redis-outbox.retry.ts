import { type OutboxRecord } from '@robot-mcp-kit/core/store';

/**
 * The events whose write to the outbox failed (Redis away), in post order, to write again once it
 * is back; bounded in bytes (twice the body length each): past the bound the oldest is given up
 * (it is still delivered from memory, only not durably).
 */
export class RetryBuffer {
  private readonly byId = new Map<string, OutboxRecord>();
  private used = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly dropped: (record: OutboxRecord) => void,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  get bytes(): number {
    return this.used;
  }

  add(record: OutboxRecord): void {
    const cost = costOf(record);
    if (cost > this.maxBytes) {
      this.dropped(record);
      return;
    }
    while (this.used + cost > this.maxBytes) {
      const oldest = this.byId.values().next().value;
      if (!oldest) break;
      this.remove(oldest.event.event_id);
      this.dropped(oldest);
    }
    this.byId.set(record.event.event_id, record);
    this.used += cost;
  }

  /** Puts a record back in front (its rewrite failed). */
  unshift(record: OutboxRecord): void {
    const rest = [...this.byId.values()];
    this.byId.clear();
    this.used = 0;
    for (const r of [record, ...rest]) {
      this.byId.set(r.event.event_id, r);
      this.used += costOf(r);
    }
  }

  remove(eventId: string): void {
    const record = this.byId.get(eventId);
    if (!record) return;
    this.byId.delete(eventId);
    this.used -= costOf(record);
  }

  /** A snapshot, oldest first. */
  records(): OutboxRecord[] {
    return [...this.byId.values()];
  }
}

function costOf(record: OutboxRecord): number {
  return 2 * record.body.length + 256;
}
