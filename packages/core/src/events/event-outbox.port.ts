import { type TaskEvent } from '../models/task-event.model.js';

/** One event as the outbox keeps it: the event, its exact body and when it was first posted. */
export interface OutboxRecord {
  readonly event: TaskEvent;
  /** The serialized body (UTF-8 JSON) that is signed and sent; a recovered event is sent as is. */
  readonly body: string;
  /** Wall-clock time (epoch ms) of the first `post`; the 10-minute retry cap counts from here. */
  readonly postedAtMs: number;
}

/**
 * The durable outbox port of an `EventPoster`: every posted event is appended before it
 * counts as written, and removed only once the poster is done with it (delivered, or given up:
 * retry cap, overload policy). Events a replica could not finish (it died, or `aclose` ran out of
 * time) are handed to a poster again through {@link EventOutbox.start}: at-least-once across
 * process deaths, duplicates only with the same `event_id`.
 *
 * Adapters: {@link InMemoryEventOutbox} (tests; survives a poster, not the process), and
 * `RedisEventOutbox` in `@robot-mcp-kit/redis` (Redis Streams, survives the process).
 */
export interface EventOutbox {
  /** For logs, e.g. `redis://127.0.0.1:6379/0 stream rmk:outbox:sleeper`. */
  readonly description: string;
  /**
   * Writes `record` durably; resolves once it is written. Rejects when it could not be written
   * (the poster logs, counts and still delivers the event from memory; an adapter may retry).
   */
  append(record: OutboxRecord): Promise<void>;
  /** Removes the event (delivered or given up). Rejects on failure; the poster logs it. */
  ack(eventId: string): Promise<void>;
  /**
   * Starts handing undelivered events to `deliver`: those this replica left behind in a former
   * life, and, after an idle time, those of replicas that died. Called once by `EventPoster.open()`.
   * Each task's events come in `seq` order. @throws ConfigError when the outbox cannot start.
   */
  start(deliver: (records: readonly OutboxRecord[]) => void): Promise<void>;
  /** Stops taking over and releases resources; undelivered events stay for the next owner. */
  close(): Promise<void>;
  /**
   * Forgets every event this replica holds pending, without removing any (another replica took
   * them over: this one was fenced), and goes on with new appends. Optional: an outbox without it
   * keeps them.
   */
  relinquish?(): void;
}
