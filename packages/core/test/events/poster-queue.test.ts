import { type EventType, type TaskEvent } from '@robot-mcp-kit/core';
import { MAX_MARKER_RANGES, markerOf, mergeRanges } from '../../src/events/coalesce-marker.js';
import { type QueuedEvent, QueuedEntry } from '../../src/events/event-queue.js';
import { type DropReason, PosterQueue, costOf } from '../../src/events/poster-queue.js';
import { makeEvent } from './test-helpers.js';

// The overload paths of the poster's queue, white-box: which event carries which coalesced seqs
// (terminal events included, docs/contract.md "Coalesced progress") and what the queue is charged.

interface Harness {
  readonly queue: PosterQueue;
  readonly gone: { entry: QueuedEvent; reason: DropReason }[];
  /** Offers an event to the queue; returns its entry (admitted or not). */
  post(event: TaskEvent): QueuedEvent;
  /** Takes the next waiting event and delivers it at once (it leaves the queue). */
  send(): QueuedEvent | undefined;
  /** What the queue should be charged: every admitted entry not yet gone or sent, at its body's cost. */
  expectedBytes(): number;
}

function harness(maxQueue: number, maxQueueBytes = 64 * 1024 * 1024): Harness {
  const gone: { entry: QueuedEvent; reason: DropReason }[] = [];
  const live = new Set<QueuedEvent>();
  const queue = new PosterQueue(1, { maxQueue, maxQueueBytes }, (entry, reason) => {
    live.delete(entry);
    gone.push({ entry, reason });
  });
  let order = 0;
  return {
    queue,
    gone,
    post(event) {
      const body = JSON.stringify(event);
      order += 1;
      const entry = new QueuedEntry(
        event,
        body,
        costOf(body),
        event.task_id,
        0,
        Number.MAX_SAFE_INTEGER,
        0,
        order,
      );
      if (queue.admit(entry)) live.add(entry);
      return entry;
    },
    send() {
      const entry = queue.take(0);
      if (!entry) return undefined;
      entry.state = 'inflight';
      queue.release(entry);
      entry.state = 'delivered';
      live.delete(entry);
      return entry;
    },
    expectedBytes: () => [...live].reduce((n, e) => n + costOf(e.body), 0),
  };
}

const sentMarker = (entry: QueuedEvent): unknown =>
  (JSON.parse(entry.body) as { payload: Record<string, unknown> }).payload.rvc_coalesced_seqs;

const goneAs = (h: Harness): string[] =>
  h.gone.map(({ entry, reason }) => `${entry.taskId}#${entry.event.seq}:${reason}`);

describe('PosterQueue: terminal events carry the coalescing marker', () => {
  it('stamps a waiting terminal event (the victim’s next event) and re-charges its bytes', () => {
    const h = harness(2);
    h.post(makeEvent('a', 1));
    const done = h.post(makeEvent('a', 2, 'task_done'));
    const before = done.bytes;
    h.post(makeEvent('b', 1, 'trigger_fired')); // room: a#1 goes, named on a#2
    expect(goneAs(h)).toEqual(['a#1:coalesced']);
    expect(done.event.payload).toEqual({ result: { ok: true }, rvc_coalesced_seqs: [[1, 1]] });
    expect(done.body).toBe(JSON.stringify(done.event));
    expect(sentMarker(done)).toEqual([[1, 1]]);
    expect(done.bytes).toBe(costOf(done.body));
    expect(done.bytes).toBeGreaterThan(before);
    expect(h.queue.bytes).toBe(h.expectedBytes());
  });

  it('keeps no body for a stamped carrier until it is read, then makes it from the marked event', () => {
    const h = harness(1);
    h.post(makeEvent('a', 1));
    const carrier = h.post(makeEvent('a', 2)); // a#1 goes for room, named on a#2
    const held = (entry: QueuedEvent) => (entry as unknown as { bodyText: string | undefined }).bodyText;
    expect(held(carrier)).toBeUndefined();
    expect(Object.isFrozen(carrier.coalesced) && Object.isFrozen(carrier.coalesced![0])).toBe(true);
    expect(carrier.bytes).toBe(costOf(JSON.stringify(carrier.event)));
    expect(carrier.body).toBe(JSON.stringify(carrier.event));
    expect(held(carrier)).toBe(carrier.body);
    expect(sentMarker(carrier)).toEqual([[1, 1]]);
  });

  it('stamps the incoming terminal event when its own task’s progress goes to make room for it', () => {
    const h = harness(1);
    h.post(makeEvent('b', 1));
    const failed = h.post(makeEvent('b', 2, 'task_failed'));
    expect(goneAs(h)).toEqual(['b#1:coalesced']);
    expect(failed.state).toBe('waiting');
    expect(failed.event.payload).toEqual({ percent: 2, rvc_coalesced_seqs: [[1, 1]] });
    expect(h.queue.bytes).toBe(h.expectedBytes());
    expect(h.queue.bytes).toBe(failed.bytes);
  });

  it('carries the ledger (no carrier was waiting) onto the task’s terminal event', () => {
    const h = harness(1);
    const original = makeEvent('a', 2, 'task_done');
    h.post(makeEvent('a', 1));
    h.post(makeEvent('b', 1, 'trigger_fired')); // a#1 goes with nothing of task a waiting
    expect(goneAs(h)).toEqual(['a#1:coalesced']);
    h.send();
    const done = h.post(original);
    expect(sentMarker(done)).toEqual([[1, 1]]);
    expect(h.queue.bytes).toBe(h.expectedBytes());
    // The marker lives on the queued copy only: the event the task made is untouched.
    expect(original.payload).toEqual({ result: { ok: true } });
    expect(done.event).not.toBe(original);
  });

  it('carries an incoming progress that had to go itself onto the terminal event', () => {
    const h = harness(1);
    h.post(makeEvent('t', 1, 'task_done'));
    h.post(makeEvent('a', 1)); // only a terminal waits: the incoming progress is coalesced
    expect(goneAs(h)).toEqual(['a#1:coalesced']);
    expect(h.send()?.taskId).toBe('t');
    const done = h.post(makeEvent('a', 2, 'task_failed'));
    expect(sentMarker(done)).toEqual([[1, 1]]);
  });

  it('hands on what a dropped event carried, never naming the dropped event itself', () => {
    const h = harness(2);
    h.post(makeEvent('a', 1));
    const watch = h.post(makeEvent('a', 2, 'watch_event'));
    h.post(makeEvent('b', 1)); // a#1 goes, named on a#2
    expect(sentMarker(watch)).toEqual([[1, 1]]);
    h.post(makeEvent('c', 1, 'trigger_fired')); // b#1 goes (ledger)
    h.post(makeEvent('d', 1, 'trigger_fired')); // no progress waits: a#2 (watch_event) is dropped
    expect(goneAs(h)).toEqual(['a#1:coalesced', 'b#1:coalesced', 'a#2:queue_full']);
    h.send();
    h.send();
    const done = h.post(makeEvent('a', 3, 'task_done'));
    // seq 1 was coalesced (named); seq 2 was lost (the receiver must see that gap).
    expect(sentMarker(done)).toEqual([[1, 1]]);
    expect(h.queue.bytes).toBe(h.expectedBytes());
  });

  it('names nothing on a terminal event when nothing was coalesced', () => {
    const h = harness(4);
    h.post(makeEvent('a', 1));
    const done = h.post(makeEvent('a', 2, 'task_done'));
    expect(h.gone).toEqual([]);
    expect(sentMarker(done)).toBeUndefined();
  });
});

describe('coalescing marker helpers', () => {
  it('keeps the newest 32 ranges', () => {
    const many = Array.from({ length: 40 }, (_, i): [number, number] => [2 * i + 1, 2 * i + 1]);
    const merged = mergeRanges(undefined, many);
    expect(merged).toHaveLength(MAX_MARKER_RANGES);
    expect(merged[0]).toEqual([17, 17]);
    expect(mergeRanges([[1, 2]], [[3, 5]])).toEqual([[1, 5]]);
  });

  it('reads the valid ranges of a stored marker only', () => {
    const event = makeEvent('a', 9, 'task_done');
    const stored = Object.assign(event, {
      payload: { result: {}, rvc_coalesced_seqs: [[3, 4], 'x', [6, 5], [0, 1], [7, 9], [1, 2]] },
    });
    expect(markerOf(stored)).toEqual([[1, 4]]);
  });
});

/** A seeded PRNG (xorshift32), so that a failure reproduces. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

interface TaskPlan {
  readonly id: string;
  readonly types: EventType[];
  next: number;
  readonly sent: Set<number>;
  readonly named: Set<number>;
}

function planTasks(random: () => number, count: number): TaskPlan[] {
  return Array.from({ length: count }, (_, i) => {
    const length = 2 + Math.floor(random() * 25);
    const types: EventType[] = Array.from({ length: length - 1 }, () => {
      const r = random();
      return r < 0.8 ? 'progress' : r < 0.9 ? 'trigger_fired' : 'watch_event';
    });
    types.push(random() < 0.8 ? 'task_done' : 'task_failed');
    return { id: `task-${i}`, types, next: 0, sent: new Set(), named: new Set() };
  });
}

/** Records a sent event; checks its marker (sorted, disjoint, below its seq, at most 32 ranges). */
function recordSent(task: TaskPlan, entry: QueuedEvent): void {
  const seq = entry.event.seq;
  expect(task.sent.has(seq)).toBe(false);
  task.sent.add(seq);
  const marker = sentMarker(entry) as [number, number][] | undefined;
  if (!marker) return;
  expect(marker.length).toBeLessThanOrEqual(MAX_MARKER_RANGES);
  let last = 0;
  for (const [from, to] of marker) {
    expect(from).toBeGreaterThan(last);
    expect(to).toBeGreaterThanOrEqual(from);
    expect(to).toBeLessThan(seq);
    last = to + 1;
    for (let s = from; s <= to; s += 1) {
      if (task.named.has(s)) throw new Error(`${task.id} seq ${s} named twice`);
      task.named.add(s);
    }
  }
}

describe('PosterQueue: every seq is sent, named once, or dropped (randomized)', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i', (seed) => {
    const random = prng(seed * 7919);
    const maxQueue = 4 + Math.floor(random() * 12);
    // At most maxQueue tasks: the ledger and the terminal events always fit (no terminal drops).
    const tasks = planTasks(random, maxQueue);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const h = harness(maxQueue);
    const sendOne = (): boolean => {
      const entry = h.send();
      if (entry) recordSent(byId.get(entry.taskId)!, entry);
      return entry !== undefined;
    };
    for (;;) {
      const open = tasks.filter((t) => t.next < t.types.length);
      if (open.length === 0) break;
      if (random() < 0.15) sendOne();
      const task = open[Math.floor(random() * open.length)]!;
      task.next += 1;
      h.post(makeEvent(task.id, task.next, task.types[task.next - 1]));
      expect(h.queue.bytes).toBe(h.expectedBytes());
    }
    while (sendOne());
    expect(h.queue.bytes).toBe(0);
    expect(h.queue.depth).toBe(0);
    const lost = new Map(tasks.map((t) => [t.id, new Set<number>()]));
    for (const { entry, reason } of h.gone) {
      expect(entry.event.type === 'task_done' || entry.event.type === 'task_failed').toBe(false);
      if (reason !== 'coalesced') lost.get(entry.taskId)!.add(entry.event.seq);
    }
    const coalesced = h.gone.filter((g) => g.reason === 'coalesced').length;
    expect(coalesced).toBeGreaterThan(0); // the queue really overflowed
    for (const task of tasks) {
      for (let seq = 1; seq <= task.types.length; seq += 1) {
        const fates = [task.sent.has(seq), task.named.has(seq), lost.get(task.id)!.has(seq)];
        if (fates.filter(Boolean).length !== 1) throw new Error(`${task.id} seq ${seq}: ${fates.join(',')}`);
      }
      expect(task.sent.has(task.types.length)).toBe(true); // the terminal event went out
    }
    expect(tasks.reduce((n, t) => n + t.named.size, 0)).toBe(coalesced);
  });
});
