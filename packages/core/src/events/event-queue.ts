import { type Context, type Span } from '@opentelemetry/api';
import { type EventType } from '../models/schema.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type SeqRanges } from './coalesce-marker.js';
import { IntrusiveList, type ListLinks } from './intrusive-list.js';

/**
 * Where a queued event is: `waiting` in its lane, `inflight` at the head of its lane (being sent
 * or waiting for its next retry), or finished one way or another.
 */
export type QueuedEventState = 'waiting' | 'inflight' | 'delivered' | 'dropped' | 'abandoned';

/** One event accepted by the poster, with its serialized body and delivery bookkeeping. */
export interface QueuedEvent {
  /** The event as sent (a progress event carrying a coalescing marker is a copy). */
  event: TaskEvent;
  /**
   * `JSON.stringify(event)`, computed at post time (or the stored body of an event taken over from
   * the outbox). A coalescing marker makes a new event: its body is then made on first read.
   */
  readonly body: string;
  /** Drops the body after the event changed (a marker): the next read of `body` makes it. */
  forgetBody(): void;
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
  /**
   * The OpenTelemetry context the event was posted in (its task's span): its delivery spans'
   * parent. Undefined when none was active (no SDK, or an event taken over from the outbox).
   */
  trace?: Context | undefined;
  /** The span of the attempt in flight (OpenTelemetry), ended when the attempt comes back. */
  attemptSpan?: Span | undefined;
  /**
   * The lists of its task while it waits (undefined otherwise). The links below are owned by
   * {@link WaitingEvents}: it sits in its lane's list, its drop class's, its task's and (progress)
   * its task's progress list, linked through these fields (no node objects), removed in O(1).
   */
  lists?: TaskLists | undefined;
  lanePrev?: QueuedEvent | undefined;
  laneNext?: QueuedEvent | undefined;
  classPrev?: QueuedEvent | undefined;
  classNext?: QueuedEvent | undefined;
  taskPrev?: QueuedEvent | undefined;
  taskNext?: QueuedEvent | undefined;
  progressPrev?: QueuedEvent | undefined;
  progressNext?: QueuedEvent | undefined;
}

/**
 * A {@link QueuedEvent} as the poster makes it: `waiting`, not attempted yet. A class, not an
 * object literal: V8 pretenures a literal's allocation site once a scavenge finds most of its
 * objects alive, and from then on allocates every one of them straight into the old generation;
 * instances of a class are not tracked that way. Every field is set here, so that all of them live
 * in the object.
 */
export class QueuedEntry implements QueuedEvent {
  state: QueuedEventState = 'waiting';
  attempts = 0;
  lastError: string | undefined = undefined;
  coalesced: SeqRanges | undefined = undefined;
  stored: boolean | undefined = undefined;
  trace: Context | undefined = undefined;
  attemptSpan: Span | undefined = undefined;
  lists: TaskLists | undefined = undefined;
  lanePrev: QueuedEvent | undefined = undefined;
  laneNext: QueuedEvent | undefined = undefined;
  classPrev: QueuedEvent | undefined = undefined;
  classNext: QueuedEvent | undefined = undefined;
  taskPrev: QueuedEvent | undefined = undefined;
  taskNext: QueuedEvent | undefined = undefined;
  progressPrev: QueuedEvent | undefined = undefined;
  progressNext: QueuedEvent | undefined = undefined;

  private bodyText: string | undefined;

  constructor(
    public event: TaskEvent,
    body: string,
    public bytes: number,
    readonly taskId: string,
    readonly postedAt: number,
    readonly deadline: number,
    readonly lane: number,
    readonly order: number,
  ) {
    this.bodyText = body;
  }

  get body(): string {
    return (this.bodyText ??= JSON.stringify(this.event));
  }

  forgetBody(): void {
    this.bodyText = undefined;
  }
}

/** The link fields of each list a waiting event sits in. */
const LANE: ListLinks<QueuedEvent> = {
  prev: (e) => e.lanePrev,
  next: (e) => e.laneNext,
  setPrev: (e, v) => (e.lanePrev = v),
  setNext: (e, v) => (e.laneNext = v),
};
const CLASS: ListLinks<QueuedEvent> = {
  prev: (e) => e.classPrev,
  next: (e) => e.classNext,
  setPrev: (e, v) => (e.classPrev = v),
  setNext: (e, v) => (e.classNext = v),
};
const TASK: ListLinks<QueuedEvent> = {
  prev: (e) => e.taskPrev,
  next: (e) => e.taskNext,
  setPrev: (e, v) => (e.taskPrev = v),
  setNext: (e, v) => (e.taskNext = v),
};
const PROGRESS: ListLinks<QueuedEvent> = {
  prev: (e) => e.progressPrev,
  next: (e) => e.progressNext,
  setPrev: (e, v) => (e.progressPrev = v),
  setNext: (e, v) => (e.progressNext = v),
};
const IDLE: ListLinks<TaskLists> = {
  prev: (t) => t.idlePrev,
  next: (t) => t.idleNext,
  setPrev: (t, v) => (t.idlePrev = v),
  setNext: (t, v) => (t.idleNext = v),
};

/** The waiting events of one task: all of them, and its progress events, oldest first. */
class TaskLists {
  readonly all = new IntrusiveList(TASK);
  readonly progress = new IntrusiveList(PROGRESS);
  /** In the idle tasks' list, while nothing of it waits (linked through the two fields after). */
  idle = false;
  idlePrev: TaskLists | undefined = undefined;
  idleNext: TaskLists | undefined = undefined;
  /** Its terminal event has left the queue: the lists go once nothing else of it waits. */
  ended = false;

  constructor(readonly taskId: string) {}
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
  private readonly lanes: IntrusiveList<QueuedEvent>[];
  private readonly byClass: Record<DropClass, IntrusiveList<QueuedEvent>> = {
    progress: new IntrusiveList(CLASS),
    watch_event: new IntrusiveList(CLASS),
    trigger_fired: new IntrusiveList(CLASS),
    terminal: new IntrusiveList(CLASS),
  };

  /**
   * Waiting events per task id. A task's lists stay while it has nothing waiting (it is idle), for
   * its next event: deleting and re-adding a key on every event made V8 reallocate the map's table
   * in the old generation each time. They go when the task's terminal event has left, or, past
   * `maxIdleTasks` idle tasks, the longest idle first (a cancelled task sends no terminal event).
   */
  private readonly byTask = new Map<string, TaskLists>();
  /** The idle tasks, longest idle first. */
  private readonly idle = new IntrusiveList(IDLE);

  constructor(
    laneCount: number,
    private readonly maxIdleTasks = DEFAULT_MAX_IDLE_TASKS,
  ) {
    this.lanes = Array.from({ length: laneCount }, () => new IntrusiveList(LANE));
  }

  /** Tasks whose lists are kept (with events waiting or not). */
  get trackedTasks(): number {
    return this.byTask.size;
  }

  /** Waiting events of one drop class. */
  count(cls: DropClass): number {
    return this.byClass[cls].length;
  }

  /** Links a new event into its lane's, drop class's and task's lists; it must not be waiting already. */
  add(entry: QueuedEvent): void {
    const lane = this.laneQueue(entry.lane);
    const cls = dropClassOf(entry.event.type);
    let task = this.byTask.get(entry.taskId);
    if (!task) {
      task = new TaskLists(entry.taskId);
      this.byTask.set(entry.taskId, task);
    } else if (task.idle) {
      this.idle.remove(task);
      task.idle = false;
    }
    lane.push(entry);
    this.byClass[cls].push(entry);
    task.all.push(entry);
    if (cls === 'progress') task.progress.push(entry);
    entry.lists = task;
  }

  /** Unlinks a waiting event from every list (a no-op when it is not waiting). */
  remove(entry: QueuedEvent): void {
    const task = entry.lists;
    if (!task) return;
    entry.lists = undefined;
    const cls = dropClassOf(entry.event.type);
    this.laneQueue(entry.lane).remove(entry);
    this.byClass[cls].remove(entry);
    if (cls === 'progress') task.progress.remove(entry);
    task.all.remove(entry);
    if (cls === 'terminal') task.ended = true;
    if (task.all.length === 0 && this.byTask.get(entry.taskId) === task) this.emptied(task);
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
    return entry.lists?.all.after(entry);
  }

  /** Removes and returns every waiting event (lane by lane). */
  drain(): QueuedEvent[] {
    const all = this.lanes.flatMap((lane) => lane.drain());
    for (const list of Object.values(this.byClass)) list.drain();
    for (const task of this.byTask.values()) {
      task.all.drain();
      task.progress.drain();
    }
    this.byTask.clear();
    this.idle.drain();
    for (const entry of all) entry.lists = undefined;
    return all;
  }

  /** Nothing of the task waits any more: its lists go (it ended) or wait for its next event. */
  private emptied(task: TaskLists): void {
    if (task.ended) {
      this.byTask.delete(task.taskId);
      return;
    }
    task.idle = true;
    this.idle.push(task);
    if (this.idle.length <= this.maxIdleTasks) return;
    const longest = this.idle.shift();
    if (longest === undefined) return;
    longest.idle = false;
    this.byTask.delete(longest.taskId);
  }

  private laneQueue(lane: number): IntrusiveList<QueuedEvent> {
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
