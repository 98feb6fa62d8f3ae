import { type EventType } from '../models/schema.js';
import { type TaskEvent } from '../models/task-event.model.js';

/**
 * Where a queued event is: `waiting` in its lane, `inflight` at the head of its lane (being sent
 * or waiting for its next retry), or finished one way or another.
 */
export type QueuedEventState = 'waiting' | 'inflight' | 'delivered' | 'dropped' | 'abandoned';

/** One event accepted by the poster, with its serialized body and delivery bookkeeping. */
export interface QueuedEvent {
  readonly event: TaskEvent;
  /** `JSON.stringify(event)`, computed once at post time. */
  readonly body: string;
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

/** The drop classes of a full queue, in the order they are sacrificed. */
type DropClass = 'progress' | 'watch_event' | 'trigger_fired' | 'terminal';
const DROP_ORDER: readonly DropClass[] = ['progress', 'watch_event', 'trigger_fired'];

function dropClassOf(type: EventType): DropClass {
  return type === 'task_done' || type === 'task_failed' ? 'terminal' : type;
}

/** A drop-class FIFO is compacted when it holds this many entries, or twice its last live size. */
const MIN_COMPACT_AT = 1024;

const isWaiting = (entry: QueuedEvent): boolean => entry.state === 'waiting';

/**
 * The waiting events of every lane. Each event sits in its lane's FIFO and in the FIFO of its
 * drop class; entries that stop waiting (sent or dropped) are removed lazily from both, so every
 * operation is O(1) amortized. A drop-class FIFO is only read when the queue is full, so it is
 * also compacted as it grows: it never holds more than twice its waiting events (plus 1024).
 */
export class WaitingEvents {
  private readonly lanes: Fifo<QueuedEvent>[];
  private readonly byClass: Record<DropClass, Fifo<QueuedEvent>> = {
    progress: new Fifo(),
    watch_event: new Fifo(),
    trigger_fired: new Fifo(),
    terminal: new Fifo(),
  };

  private readonly compactAt: Record<DropClass, number> = {
    progress: MIN_COMPACT_AT,
    watch_event: MIN_COMPACT_AT,
    trigger_fired: MIN_COMPACT_AT,
    terminal: MIN_COMPACT_AT,
  };

  constructor(laneCount: number) {
    this.lanes = Array.from({ length: laneCount }, () => new Fifo<QueuedEvent>());
  }

  add(entry: QueuedEvent): void {
    this.laneQueue(entry.lane).push(entry);
    const cls = dropClassOf(entry.event.type);
    const queue = this.byClass[cls];
    queue.push(entry);
    if (queue.length >= this.compactAt[cls]) {
      queue.retain(isWaiting);
      this.compactAt[cls] = Math.max(MIN_COMPACT_AT, 2 * queue.length);
    }
  }

  /** Removes and returns the oldest waiting event of `lane`. */
  takeNext(lane: number): QueuedEvent | undefined {
    const queue = this.laneQueue(lane);
    for (;;) {
      const entry = queue.shift();
      if (!entry || entry.state === 'waiting') return entry;
    }
  }

  /**
   * The waiting event to sacrifice when the queue is full and an event of type `incoming`
   * arrives, or `undefined` when the incoming event itself is to be dropped: the oldest waiting
   * `progress`, else `watch_event`, else `trigger_fired`; when only terminal events wait, the
   * incoming one if it is `progress`, else the oldest waiting terminal event.
   */
  victimFor(incoming: EventType): QueuedEvent | undefined {
    for (const cls of DROP_ORDER) {
      const entry = this.oldestWaiting(cls);
      if (entry) return entry;
    }
    if (incoming === 'progress') return undefined;
    return this.oldestWaiting('terminal');
  }

  /** Removes and returns every waiting event (lane by lane). */
  drain(): QueuedEvent[] {
    for (const cls of Object.values(this.byClass)) cls.drain();
    return this.lanes.flatMap((lane) => lane.drain().filter((e) => e.state === 'waiting'));
  }

  private oldestWaiting(cls: DropClass): QueuedEvent | undefined {
    const queue = this.byClass[cls];
    for (;;) {
      const entry = queue.peek();
      if (!entry || entry.state === 'waiting') return entry;
      queue.shift();
    }
  }

  private laneQueue(lane: number): Fifo<QueuedEvent> {
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
