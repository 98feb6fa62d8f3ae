import { type Clock, type TimerHandle, systemClock } from './clock.port.js';

const RESOLVED = Promise.resolve();

/**
 * What a {@link TimerQueue} holds: an object reused from one wait to the next (the queue keeps its
 * place in `timerSlot`), so that a queued wait allocates nothing.
 */
export abstract class QueuedTimer {
  /** Where the timer sits in its queue's heap; -1 while not queued. Owned by the queue. */
  timerSlot = -1;

  /** Called once when the timer is due (it has left the queue by then). */
  abstract onTimer(): void;
}

/**
 * Many timers on one clock timer: a binary min-heap by due time, then by the order they were added,
 * with one clock timer armed for the earliest. A timer costs an array slot, not a Timeout, a
 * closure and a timer-list entry each: at 10,000 tasks sleeping in steps those outlived a
 * young-generation GC and were a large part of the peak RSS.
 *
 * Timers due at the same time fire in the order they were added, in one clock callback and the
 * microtasks after it. A timer added while the queue fires waits for the next clock callback, even
 * when it is already due.
 */
export class TimerQueue {
  private readonly items: QueuedTimer[] = [];
  /** Due time and add order of `items[i]`, as numbers (no per-timer object). */
  private readonly dues: number[] = [];
  private readonly orders: number[] = [];
  private added = 0;
  private armed: TimerHandle | undefined = undefined;
  private armedDue = Infinity;
  /** While firing: what is due by `fireNow` and was added up to `fireLast` fires. */
  private firing = false;
  private fireNow = 0;
  private fireLast = 0;
  private readonly onClock = (): void => this.fire();
  private readonly onMicrotask = (): void => this.fireNext();

  /**
   * @param clock arms the one timer
   * @param now the queue's time in ms; `clock.now()` unless given (the system queue uses the
   *   monotonic `performance.now()`, so a wall-clock step never moves a wait)
   */
  constructor(
    private readonly clock: Clock,
    private readonly now: () => number = () => clock.now(),
  ) {}

  /** Timers waiting. */
  get size(): number {
    return this.items.length;
  }

  /** Queues `timer` to fire once `ms` (>= 0) have passed on the queue's time; it must not be queued. */
  add(timer: QueuedTimer, ms: number): void {
    if (timer.timerSlot !== -1) throw new Error('the timer is already queued');
    const now = this.now();
    const due = now + Math.max(0, ms);
    const slot = this.items.length;
    this.items.push(timer);
    this.dues.push(due);
    this.orders.push((this.added += 1));
    timer.timerSlot = slot;
    this.siftUp(slot);
    // Re-armed too when the armed time has passed: a clock timer lost (cleared or faked away by
    // someone else) must not hold the queue up; re-arming one that is merely late changes nothing.
    if (!this.firing && (due < this.armedDue || this.armedDue <= now)) this.arm(this.dues[0] as number);
  }

  /** Removes `timer` if it is queued; returns whether it was. Disarms the clock timer once empty. */
  delete(timer: QueuedTimer): boolean {
    const slot = timer.timerSlot;
    if (slot < 0 || this.items[slot] !== timer) return false;
    this.removeAt(slot);
    if (this.items.length === 0 && !this.firing) this.disarm();
    return true;
  }

  /**
   * The clock timer fired: fires the first timer due, then the others due by then (and added
   * before then) one per microtask, each after the promise jobs the previous one queued first
   * (its waiter's continuation), as node runs the microtasks between timers; then arms the clock
   * for the earliest left. A timer deleted in between (a cancelled sleep) does not fire.
   */
  private fire(): void {
    this.armed = undefined;
    this.armedDue = Infinity;
    this.firing = true;
    this.fireNow = this.now();
    this.fireLast = this.added;
    this.fireNext();
  }

  private fireNext(): void {
    const first = this.items[0];
    if (
      first === undefined ||
      (this.dues[0] as number) > this.fireNow ||
      (this.orders[0] as number) > this.fireLast
    ) {
      this.firing = false;
      if (this.items.length > 0) this.arm(this.dues[0] as number);
      return;
    }
    this.removeAt(0);
    try {
      first.onTimer();
    } finally {
      void RESOLVED.then(this.onMicrotask);
    }
  }

  private arm(due: number): void {
    this.disarm();
    this.armedDue = due;
    // Whole milliseconds, rounded up: a clock timer that fires early finds nothing due and re-arms.
    this.armed = this.clock.setTimeout(this.onClock, Math.max(0, Math.ceil(due - this.now())));
  }

  private disarm(): void {
    if (this.armed !== undefined) this.clock.clearTimeout(this.armed);
    this.armed = undefined;
    this.armedDue = Infinity;
  }

  /** Takes the item at `slot` out of the heap (its slot becomes -1) and restores the heap order. */
  private removeAt(slot: number): void {
    const { items, dues, orders } = this;
    const removed = items[slot] as QueuedTimer;
    removed.timerSlot = -1;
    const end = items.length - 1;
    if (slot !== end) {
      this.place(slot, items[end] as QueuedTimer, dues[end] as number, orders[end] as number);
    }
    items.pop();
    dues.pop();
    orders.pop();
    if (slot < end) {
      this.siftDown(slot);
      this.siftUp(slot);
    }
  }

  private before(a: number, b: number): boolean {
    const dueA = this.dues[a] as number;
    const dueB = this.dues[b] as number;
    return dueA < dueB || (dueA === dueB && (this.orders[a] as number) < (this.orders[b] as number));
  }

  private siftUp(start: number): void {
    let slot = start;
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      if (!this.before(slot, parent)) return;
      this.swap(slot, parent);
      slot = parent;
    }
  }

  private siftDown(start: number): void {
    const size = this.items.length;
    let slot = start;
    for (;;) {
      const left = 2 * slot + 1;
      if (left >= size) return;
      const right = left + 1;
      const child = right < size && this.before(right, left) ? right : left;
      if (!this.before(child, slot)) return;
      this.swap(slot, child);
      slot = child;
    }
  }

  private swap(a: number, b: number): void {
    const { items, dues, orders } = this;
    const itemA = items[a] as QueuedTimer;
    const dueA = dues[a] as number;
    const orderA = orders[a] as number;
    this.place(a, items[b] as QueuedTimer, dues[b] as number, orders[b] as number);
    this.place(b, itemA, dueA, orderA);
  }

  private place(slot: number, item: QueuedTimer, due: number, order: number): void {
    this.items[slot] = item;
    this.dues[slot] = due;
    this.orders[slot] = order;
    item.timerSlot = slot;
  }
}

/** The longest delay node's setTimeout takes as it is (2^31 - 1 ms); longer ones fire after 1 ms. */
const NODE_TIMEOUT_MAX = 2 ** 31 - 1;

let systemQueue: TimerQueue | undefined;

/**
 * The queue for a wait of `ms` on `clock`, or undefined when the wait must keep its own clock timer:
 * only {@link systemClock} waits are queued (on the monotonic clock, one unref'd node timer for the
 * process), and only delays node's setTimeout takes as they are (1 ms to 2^31 - 1 ms), so that a
 * queued wait ends exactly when its own setTimeout would have, never earlier.
 */
export function timerQueueFor(clock: Clock, ms: number): TimerQueue | undefined {
  if (clock !== systemClock || !(ms >= 1 && ms <= NODE_TIMEOUT_MAX)) return undefined;
  return (systemQueue ??= new TimerQueue(systemClock, () => performance.now()));
}
