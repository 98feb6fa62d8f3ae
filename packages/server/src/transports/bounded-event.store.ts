import {
  type EventId,
  type EventStore,
  type StreamId,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Default bounds of one session's replay buffer. */
export const EVENT_STORE_MAX_EVENTS = 256;
export const EVENT_STORE_MAX_BYTES = 1024 * 1024;

interface StoredEvent {
  readonly seq: number;
  readonly streamId: StreamId;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

/**
 * The replay buffer of one streamable-HTTP session (the SDK's `EventStore`): the newest messages
 * sent on its SSE streams, bounded in count and in bytes, so a client that reconnects with
 * `Last-Event-ID` gets what it missed. Event ids are `<seq>_<streamId>`, so an id whose event was
 * already dropped still names its stream; replay then resumes with the oldest event still held.
 */
export class BoundedEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private nextSeq = 1;
  private bytes = 0;

  constructor(
    private readonly maxEvents = EVENT_STORE_MAX_EVENTS,
    private readonly maxBytes = EVENT_STORE_MAX_BYTES,
  ) {}

  /** Events held now. */
  get size(): number {
    return this.events.length;
  }

  /** Bytes held now (JSON length of the messages). */
  get byteSize(): number {
    return this.bytes;
  }

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = this.nextSeq++;
    const bytes = Buffer.byteLength(JSON.stringify(message), 'utf8');
    if (bytes <= this.maxBytes) {
      this.events.push({ seq, streamId, message, bytes });
      this.bytes += bytes;
      while (this.events.length > this.maxEvents || this.bytes > this.maxBytes) {
        const dropped = this.events.shift();
        if (dropped) this.bytes -= dropped.bytes;
      }
    }
    return Promise.resolve(`${seq}_${streamId}`);
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(parseEventId(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) throw new Error('Last-Event-ID is not an event id of this server');
    const later = this.events.filter((e) => e.streamId === parsed.streamId && e.seq > parsed.seq);
    for (const event of later) {
      // The priming event (an empty object) only carries an id; there is nothing to replay.
      if (Object.keys(event.message).length === 0) continue;
      await send(`${event.seq}_${event.streamId}`, event.message);
    }
    return parsed.streamId;
  }
}

function parseEventId(eventId: string): { seq: number; streamId: string } | undefined {
  const cut = eventId.indexOf('_');
  if (cut <= 0 || cut === eventId.length - 1) return undefined;
  const seq = Number(eventId.slice(0, cut));
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { seq, streamId: eventId.slice(cut + 1) };
}
