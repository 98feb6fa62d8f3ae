import { type EventType } from '../models/schema.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type SeqRanges } from './coalesce-marker.js';
import { LinkedList, type ListNode } from './linked-list.js';

/**
 * Where a queued event is: `waiting` in its lane, `inflight` at the head of its lane (being sent
 * or waiting for its next retry), or finished one way or another.
 */
export type QueuedEventState = 'waiting' | 'inflight' | 'delivered' | 'dropped' | 'abandoned';

/** One event accepted by the poster, with its serialized body and delivery bookkeeping. */
export interface QueuedEvent {
  /** The event as sent (a progress event carrying a coalescing marker is a copy). */
  event: TaskEvent;
  /** `JSON.stringify(event)`, computed at post time (again only when a marker is added). */
  body: string;
  /** What the entry is charged against the poster's byte budget. */
  bytes: number;
  readonly taskId: string;
  /** Clock time at which `post()` accepted it; the retry cap counts from here. */
  readonly postedAt: number;
  /** `postedAt + maxRetryMs`: no attempt is ever made after this. */
  readonly deadline: number;
  readonly lane: number;
  /** Accept order across the whole poster (1, 2, 3, ...). */
  readonly order: number;
  state: QueuedEventState;
  attempts: number;
  lastError?: string;
  /** Progress seqs of this task coalesced into this (progress) event. */
  coalesced?: SeqRanges;
  /** Written to the poster's outbox (or taken over from it): removed there once finished. */
  stored?: boolean;
  /** Where it sits while waiting (lane, drop class, and per-task progress); removed in O(1). */
  links?: EntryLinks;
}

/** Classes, not literals, for what the poster allocates per event (see `linked-list.ts`). */
class EntryLinks {
  progress: ListNode<QueuedEvent> | undefined = undefined;

  constructor(
    readonly lane: ListNode<QueuedEvent>,
    readonly cls: ListNode<QueuedEvent>,
    readonly task: ListNode<QueuedEvent>,
    readonly lists: TaskLists,
  ) {}
}

/** A {@link QueuedEvent} as the poster makes it: `waiting`, not attempted yet. */
export class QueuedEntry implements QueuedEvent {
  state: QueuedEventState = 'waiting';
  attempts = 0;
  lastError: string | undefined = undefined;
  coalesced: SeqRanges | undefined = undefined;
  stored: boolean | undefined = undefined;
  links: EntryLinks | undefined = undefined;

  constructor(
    public event: TaskEvent,
    public body: string,
    public bytes: number,
    readonly taskId: string,
    readonly postedAt: number,
    readonly deadline: number,
    readonly lane: number,
    readonly order: number,
  ) {}
}

/** The waiting events of one task: all of them, and its progress events, oldest first. */
class TaskLists {
  readonly all = new LinkedList<QueuedEvent>();
  readonly progress = new LinkedList<QueuedEvent>();
  /** Its place among the idle tasks, while nothing of it waits. */
  idle: ListNode<string> | undefined = undefined;
  /** Its terminal event has left the queue: the lists go once nothing else of it waits. */
  ended = false;
}

/** A FIFO with O(1) amortized push/shift (an array with a moving head, compacted now and then). */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Keeps only the items `keep` accepts, in order. */
  retain(keep: (item: T) => boolean): void {
    this.items = (this.items.slice(this.head) as T[]).filter(keep);
    this.head = 0;
  }

  /** Removes and returns every item, oldest first. */
  drain(): T[] {
    const rest = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return rest;
  }
}

/** Idle tasks whose lists {@link WaitingEvents} keeps by default (the poster passes `maxQueue`). */
const DEFAULT_MAX_IDLE_TASKS = 10_000;

/** The drop classes of a full queue; progress is coalesced first, terminal events go last. */
export type DropClass = 'progress' | 'watch_event' | 'trigger_fired' | 'terminal';

export function dropClassOf(type: EventType): DropClass {
  return type === 'task_done' || type === 'task_failed' ? 'terminal' : type;
}

/**
 * The waiting events of every lane. Each event sits in its lane's list, in the list of its drop
 * class and in its task's lists; every list is doubly linked, so taking, dropping
 * or coalescing an event unlinks it everywhere in O(1) and nothing it held stays reachable.
 */
export class WaitingEvents {
  private readonly lanes: LinkedList<QueuedEvent>[];
  private readonly byClass: Record<DropClass, LinkedList<QueuedEvent>> = {
    progress: new LinkedList(),
    watch_event: new LinkedList(),
    trigger_fired: new LinkedList(),
    terminal: new LinkedList(),
  };

  /**
   * Waiting events per task id. A task's lists stay while it has nothing waiting (it is idle), for
   * its next event: deleting and re-adding a key on every event made V8 reallocate the map's table
   * in the old generation each time. They go when the task's terminal event has left, or, past
   * `maxIdleTasks` idle tasks, the longest idle first (a cancelled task sends no terminal event).
   */
  private readonly byTask = new Map<string, TaskLists>();
  /** Ids of the idle tasks, longest idle first. */
  private readonly idle = new LinkedList<string>();

  constructor(
    laneCount: number,
    private readonly maxIdleTasks = DEFAULT_MAX_IDLE_TASKS,
  ) {
    this.lanes = Array.from({ length: laneCount }, () => new LinkedList<QueuedEvent>());
  }

  /** Tasks whose lists are kept (with events waiting or not). */
  get trackedTasks(): number {
    return this.byTask.size;
  }

  /** Waiting events of one drop class. */
  count(cls: DropClass): number {
    return this.byClass[cls].length;
  }

  add(entry: QueuedEvent): void {
    const lane = this.laneQueue(entry.lane).push(entry);
    const cls = dropClassOf(entry.event.type);
    let task = this.byTask.get(entry.taskId);
    if (!task) {
      task = new TaskLists();
      this.byTask.set(entry.taskId, task);
    } else if (task.idle) {
      this.idle.remove(task.idle);
      task.idle = undefined;
    }
    entry.links = new EntryLinks(lane, this.byClass[cls].push(entry), task.all.push(entry), task);
    if (cls === 'progress') entry.links.progress = task.progress.push(entry);
  }

  /** Unlinks a waiting event from every list. */
  remove(entry: QueuedEvent): void {
    const links = entry.links;
    if (!links) return;
    entry.links = undefined;
    links.lane.list?.remove(links.lane);
    links.cls.list?.remove(links.cls);
    if (links.progress) links.progress.list?.remove(links.progress);
    const task = links.lists;
    task.all.remove(links.task);
    if (dropClassOf(entry.event.type) === 'terminal') task.ended = true;
    if (task.all.length === 0 && this.byTask.get(entry.taskId) === task) this.emptied(entry.taskId, task);
  }

  /** Removes and returns the oldest waiting event of `lane`. */
  takeNext(lane: number): QueuedEvent | undefined {
    const entry = this.laneQueue(lane).peek();
    if (entry) this.remove(entry);
    return entry;
  }

  /** The oldest waiting event of a drop class. */
  oldest(cls: DropClass): QueuedEvent | undefined {
    return this.byClass[cls].peek();
  }

  /** The oldest waiting progress event of a task. */
  oldestProgressOf(taskId: string): QueuedEvent | undefined {
    return this.byTask.get(taskId)?.progress.peek();
  }

  /** The waiting event of the same task right after `entry` (the next one it will send). */
  nextOfTask(entry: QueuedEvent): QueuedEvent | undefined {
    return entry.links?.task.next?.value;
  }

  /** Removes and returns every waiting event (lane by lane). */
  drain(): QueuedEvent[] {
    const all = this.lanes.flatMap((lane) => lane.drain());
    for (const list of Object.values(this.byClass)) list.drain();
    this.byTask.clear();
    this.idle.drain();
    for (const entry of all) entry.links = undefined;
    return all;
  }

  /** Nothing of the task waits any more: its lists go (it ended) or wait for its next event. */
  private emptied(taskId: string, task: TaskLists): void {
    if (task.ended) {
      this.byTask.delete(taskId);
      return;
    }
    task.idle = this.idle.push(taskId);
    if (this.idle.length <= this.maxIdleTasks) return;
    const longest = this.idle.shift();
    if (longest !== undefined) this.byTask.delete(longest);
  }

  private laneQueue(lane: number): LinkedList<QueuedEvent> {
    const queue = this.lanes[lane];
    if (!queue) throw new RangeError(`lane ${lane} does not exist`);
    return queue;
  }
}

/** The lane of a task: FNV-1a of its id modulo `lanes`, so a task's events always share a lane. */
export function laneOf(taskId: string, lanes: number): number {
  if (lanes <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < taskId.length; i += 1) {
    hash ^= taskId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % lanes;
}
