import { type QueuedEvent, QueuedEntry, WaitingEvents, laneOf } from '../../src/events/event-queue.js';
import { Fifo } from '../../src/events/fifo.js';
import { type EventType } from '@robot-mcp-kit/core';
import { makeEvent } from './test-helpers.js';

let order = 0;
function entry(type: EventType, lane = 0, taskId?: string): QueuedEvent {
  order += 1;
  const task = taskId ?? `t-${order}`;
  return new QueuedEntry(makeEvent(task, 1, type), '{}', 514, task, 0, 1, lane, order);
}

describe('Fifo', () => {
  it('is first in, first out across compactions', () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 5000; i += 1) fifo.push(i);
    for (let i = 0; i < 4000; i += 1) expect(fifo.shift()).toBe(i);
    expect(fifo.length).toBe(1000);
    fifo.push(5000);
    expect(fifo.peek()).toBe(4000);
    expect(fifo.drain()).toHaveLength(1001);
    expect(fifo.shift()).toBeUndefined();
    expect(fifo.peek()).toBeUndefined();
  });

  it('retains only the items a predicate keeps, in order', () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 10; i += 1) fifo.push(i);
    fifo.shift();
    fifo.retain((n) => n % 3 === 0);
    expect(fifo.drain()).toEqual([3, 6, 9]);
  });
});

describe('WaitingEvents', () => {
  it('unlinks a removed entry from its lane, drop class and task at once', () => {
    const waiting = new WaitingEvents(2);
    const a = entry('progress', 0);
    const b = entry('progress', 0);
    const c = entry('task_done', 1);
    [a, b, c].forEach((e) => waiting.add(e));
    waiting.remove(a);
    expect(a.lists).toBeUndefined();
    expect([a.laneNext, a.classNext, a.taskNext, a.progressNext]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(waiting.oldest('progress')).toBe(b);
    expect(waiting.oldestProgressOf(a.taskId)).toBeUndefined();
    expect(waiting.takeNext(0)).toBe(b);
    expect(waiting.takeNext(0)).toBeUndefined();
    expect(waiting.count('progress')).toBe(0);
    expect(waiting.oldest('terminal')).toBe(c);
    expect(waiting.drain()).toEqual([c]);
    expect(waiting.count('terminal')).toBe(0);
  });

  it('holds nothing of the entries removed from the middle (bounded memory)', () => {
    const waiting = new WaitingEvents(1);
    const held = entry('progress', 0);
    waiting.add(held);
    for (let i = 0; i < 10_000; i += 1) {
      const e = entry('progress', 0);
      waiting.add(e);
      waiting.remove(e);
    }
    expect(waiting.count('progress')).toBe(1);
    expect(waiting.oldest('progress')).toBe(held);
    expect(waiting.takeNext(0)).toBe(held);
  });

  it('keeps an idle task’s lists for its next event, up to a bound, longest idle dropped first', () => {
    const waiting = new WaitingEvents(1, 3);
    const busy = entry('progress', 0);
    waiting.add(busy);
    const idle = [entry('progress', 0), entry('progress', 0), entry('progress', 0)];
    for (const e of idle) {
      waiting.add(e);
      waiting.remove(e);
    }
    expect(waiting.trackedTasks).toBe(4); // three idle, kept: no more than the bound
    // The same task again: its kept lists are reused, nothing is added.
    const again = entry('progress', 0, idle[0]!.taskId);
    waiting.add(again);
    expect(waiting.trackedTasks).toBe(4);
    expect(waiting.oldestProgressOf(idle[0]!.taskId)).toBe(again);
    waiting.remove(again); // idle[0] is now the most recently idle
    // A fourth idle task passes the bound: the longest idle one (idle[1]) goes, no other.
    const fourth = entry('progress', 0);
    waiting.add(fourth);
    waiting.remove(fourth);
    expect(waiting.trackedTasks).toBe(4);
    const back = entry('progress', 0, idle[1]!.taskId);
    waiting.add(back);
    expect(waiting.trackedTasks).toBe(5); // idle[1] had to get new lists
    expect(waiting.oldestProgressOf(busy.taskId)).toBe(busy);
  });

  it('drops a task’s lists once its terminal event has left and nothing else of it waits', () => {
    const waiting = new WaitingEvents(1, 10);
    const progress = entry('progress', 0);
    const done = entry('task_done', 0, progress.taskId);
    waiting.add(progress);
    waiting.add(done);
    waiting.remove(done); // dropped for room, say: the task still has its progress waiting
    expect(waiting.trackedTasks).toBe(1);
    expect(waiting.takeNext(0)).toBe(progress);
    expect(waiting.trackedTasks).toBe(0);
  });

  it('refuses a lane that does not exist', () => {
    expect(() => new WaitingEvents(1).add(entry('progress', 3))).toThrow(RangeError);
  });

  it('laneOf is stable and within range', () => {
    for (const lanes of [1, 2, 8, 13]) {
      for (let i = 0; i < 50; i += 1) {
        const lane = laneOf(`nav-${i}`, lanes);
        expect(lane).toBeGreaterThanOrEqual(0);
        expect(lane).toBeLessThan(lanes);
      }
    }
  });
});
