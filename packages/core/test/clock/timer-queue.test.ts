import { type Clock, systemClock } from '@robot-mcp-kit/core';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { QueuedTimer, TimerQueue, timerQueueFor } from '../../src/clock/timer-queue.js';

/** A timer that records its name in `log` when it fires; `then` runs right after, inside the firing. */
class Named extends QueuedTimer {
  constructor(
    readonly name: string,
    private readonly log: string[],
    private readonly then?: () => void,
  ) {
    super();
  }

  onTimer(): void {
    this.log.push(this.name);
    this.then?.();
  }
}

function setup(): { clock: ManualClock; queue: TimerQueue; log: string[] } {
  const clock = new ManualClock();
  return { clock, queue: new TimerQueue(clock), log: [] };
}

describe('TimerQueue', () => {
  it('fires by due time, then in the order added, with one clock timer armed at a time', async () => {
    const { clock, queue, log } = setup();
    queue.add(new Named('c30', log), 30);
    queue.add(new Named('a10', log), 10);
    queue.add(new Named('b20', log), 20);
    queue.add(new Named('a10-second', log), 10);
    expect(clock.pending).toBe(1);
    expect(queue.size).toBe(4);
    await clock.advance(9);
    expect(log).toEqual([]);
    await clock.advance(1);
    expect(log).toEqual(['a10', 'a10-second']);
    await clock.advance(20);
    expect(log).toEqual(['a10', 'a10-second', 'b20', 'c30']);
    expect(queue.size).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('fires timers due at the same time in the order they were added, each after the promise jobs the one before queued', async () => {
    const { clock, queue, log } = setup();
    for (let i = 0; i < 5; i += 1) {
      const timer = new Named(`t${i}`, log, () => {
        void Promise.resolve().then(() => log.push(`after t${i}`));
      });
      queue.add(timer, 50);
    }
    await clock.advance(50);
    expect(log).toEqual([
      't0',
      'after t0',
      't1',
      'after t1',
      't2',
      'after t2',
      't3',
      'after t3',
      't4',
      'after t4',
    ]);
  });

  it('never fires a deleted timer, re-arms for the next one, and disarms once empty', async () => {
    const { clock, queue, log } = setup();
    const first = new Named('first', log);
    const second = new Named('second', log);
    const third = new Named('third', log);
    queue.add(first, 10);
    queue.add(second, 20);
    queue.add(third, 30);
    expect(queue.delete(first)).toBe(true);
    expect(queue.delete(first)).toBe(false);
    expect(first.timerSlot).toBe(-1);
    await clock.advance(20);
    expect(log).toEqual(['second']);
    expect(queue.delete(third)).toBe(true);
    expect(clock.pending).toBe(0);
    await clock.advance(100);
    expect(log).toEqual(['second']);
  });

  it('does not fire a timer deleted by one that fired before it at the same time', async () => {
    const { clock, queue, log } = setup();
    const victim = new Named('victim', log);
    queue.add(new Named('canceller', log, () => queue.delete(victim)), 10);
    queue.add(victim, 10);
    queue.add(new Named('last', log), 10);
    await clock.advance(10);
    expect(log).toEqual(['canceller', 'last']);
  });

  it('keeps a timer added while firing for a later clock callback, even when it is already due', async () => {
    const { clock, queue, log } = setup();
    const again = new Named('again', log);
    const late = new Named('late', log);
    queue.add(
      new Named('first', log, () => {
        queue.add(again, 0);
        queue.add(late, 5);
      }),
      10,
    );
    queue.add(new Named('same-time', log), 10);
    await clock.advance(10);
    // `again` (0 ms) did not fire inside the callback that added it: it waits for the next one.
    expect(log).toEqual(['first', 'same-time', 'again']);
    expect(queue.size).toBe(1);
    await clock.advance(5);
    expect(log).toEqual(['first', 'same-time', 'again', 'late']);
    expect(clock.pending).toBe(0);
  });

  it('arms earlier when an earlier timer is added, and refuses a timer that is already queued', async () => {
    const { clock, queue, log } = setup();
    const late = new Named('late', log);
    queue.add(late, 100);
    queue.add(new Named('early', log), 5);
    expect(clock.pending).toBe(1);
    expect(clock.nextDue()).toBe(clock.now() + 5);
    expect(() => queue.add(late, 1)).toThrow(/already queued/);
    await clock.advance(100);
    expect(log).toEqual(['early', 'late']);
  });

  it('keeps heap order through many timers added and deleted at random', async () => {
    const { clock, queue, log } = setup();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const timers = Array.from({ length: 2000 }, (_, i) => ({
      timer: new Named(String(i), log),
      ms: Math.floor(random() * 500),
    }));
    for (const { timer, ms } of timers) queue.add(timer, ms);
    const deleted = new Set(timers.filter(() => random() < 0.3).map(({ timer }) => timer.name));
    for (const { timer } of timers) if (deleted.has(timer.name)) queue.delete(timer);
    await clock.advance(500);
    const expected = timers
      .map(({ timer, ms }, index) => ({ name: timer.name, ms, index }))
      .filter(({ name }) => !deleted.has(name))
      .sort((a, b) => a.ms - b.ms || a.index - b.index)
      .map(({ name }) => name);
    expect(log).toEqual(expected);
    expect(queue.size).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('re-arms when the clock timer fires before the earliest timer is due', async () => {
    const clock = new ManualClock();
    let offset = 0;
    // The queue's time runs behind the clock by `offset` ms: the clock timer comes early.
    const queue = new TimerQueue(clock, () => clock.now() - offset);
    const log: string[] = [];
    queue.add(new Named('t', log), 10);
    offset = 3;
    await clock.advance(10);
    expect(log).toEqual([]);
    expect(clock.pending).toBe(1);
    await clock.advance(3);
    expect(log).toEqual(['t']);
  });
  it('re-arms when a timer is added after the armed time passed without the clock timer firing', () => {
    let now = 0;
    const armed: number[] = [];
    const lost: Clock = {
      now: () => now,
      setTimeout: (_cb: () => void, ms: number) => ({ id: armed.push(ms) }),
      clearTimeout: () => undefined,
    };
    const queue = new TimerQueue(lost);
    queue.add(new Named('first', []), 10);
    queue.add(new Named('later', []), 50);
    expect(armed).toEqual([10]);
    now = 20; // the armed timer was lost
    queue.add(new Named('third', []), 100);
    expect(armed).toEqual([10, 0]); // for the overdue first one
  });
});

describe('timerQueueFor', () => {
  it('queues only system-clock waits node setTimeout takes as they are, on one shared queue', () => {
    const queue = timerQueueFor(systemClock, 300);
    expect(queue).toBeInstanceOf(TimerQueue);
    expect(timerQueueFor(systemClock, 1)).toBe(queue);
    expect(timerQueueFor(systemClock, 2 ** 31 - 1)).toBe(queue);
    for (const ms of [0, 0.5, -1, Number.NaN, Infinity, 2 ** 31])
      expect(timerQueueFor(systemClock, ms)).toBeUndefined();
    expect(timerQueueFor(new ManualClock(), 300)).toBeUndefined();
  });
});
