import { type TaskEventJson } from '@robot-mcp-kit/core';

/** An event the poster accepted, as the wire JSON (spec §3.1). */
export interface EventEntry {
  /** Pass as `since` to read the entries after this one. */
  readonly cursor: number;
  readonly kind: 'event';
  readonly event: TaskEventJson;
}

/** A task was cancelled (cancellation sends no event, so the feed records it itself). */
export interface CancelledEntry {
  readonly cursor: number;
  readonly kind: 'cancelled';
  readonly task_id: string;
  readonly tool: string;
  readonly ts: string;
}

/**
 * A task started with trigger types no evaluator knows: they will never fire (the spec only asks for
 * a warning log), so the feed says so at once.
 */
export interface UnrecognisedTriggersEntry {
  readonly cursor: number;
  readonly kind: 'unrecognised_triggers';
  readonly task_id: string;
  readonly tool: string;
  readonly types: readonly string[];
  readonly known_trigger_types: readonly string[];
  readonly ts: string;
}

/** Entries overwritten before they were read: `count` entries up to and including `cursor`. */
export interface LostEntry {
  readonly cursor: number;
  readonly kind: 'lost';
  readonly count: number;
}

/** What the ring holds. */
export type FeedEntry = EventEntry | CancelledEntry | UnrecognisedTriggersEntry;

/** What a read returns. */
export type FeedItem = FeedEntry | LostEntry;

/** What a wait looks for; every field is optional. */
export interface FeedFilter {
  /**
   * An event type (`progress`, `trigger_fired`, `task_done`, `task_failed`, `watch_event`),
   * `cancelled`, `unrecognised_triggers`, or a trigger type (`zone_entered`) matching `trigger_fired` events of that trigger.
   */
  readonly type?: string;
  readonly taskId?: string;
  /**
   * Whether the reader may see entries of this task (the one visibility rule, `TaskOwners.allows`):
   * entries of other principals' tasks are skipped as if absent.
   */
  readonly visible?: (taskId: string) => boolean;
}

export function taskIdOf(entry: FeedEntry): string {
  return entry.kind === 'event' ? entry.event.task_id : entry.task_id;
}

/** The last entry of a task: task_done, task_failed or cancelled. */
export function isTerminal(entry: FeedEntry): boolean {
  if (entry.kind !== 'event') return entry.kind === 'cancelled';
  return entry.event.type === 'task_done' || entry.event.type === 'task_failed';
}

function triggerTypeOf(event: TaskEventJson): unknown {
  const trigger = event.payload.trigger;
  return trigger !== null && typeof trigger === 'object' && !Array.isArray(trigger)
    ? (trigger as Record<string, unknown>).type
    : undefined;
}

/**
 * Whether `entry` satisfies `filter`. With a task id, the task's terminal entry always matches: a
 * wait for an event of a task ends when the task ends, since nothing more can come.
 */
export function matchesFilter(entry: FeedEntry, filter: FeedFilter): boolean {
  if (filter.visible && !filter.visible(taskIdOf(entry))) return false;
  if (filter.taskId !== undefined) {
    if (taskIdOf(entry) !== filter.taskId) return false;
    if (isTerminal(entry)) return true;
  }
  if (filter.type === undefined) return true;
  if (entry.kind !== 'event') return filter.type === entry.kind;
  const { event } = entry;
  return (
    event.type === filter.type || (event.type === 'trigger_fired' && triggerTypeOf(event) === filter.type)
  );
}
