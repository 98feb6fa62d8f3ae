import { FinishedQueue } from '../../src/tasks/task-retention.js';

describe('FinishedQueue', () => {
  it('is first in, first out', () => {
    const queue = new FinishedQueue();
    expect(queue.shift()).toBeUndefined();
    queue.push('a');
    queue.push('b');
    expect(queue.size).toBe(2);
    expect(queue.shift()).toBe('a');
    queue.push('c');
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(['b', 'c', undefined]);
    expect(queue.size).toBe(0);
  });

  it('keeps order across compactions', () => {
    const queue = new FinishedQueue();
    const out: string[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      queue.push(String(i));
      if (queue.size > 100) out.push(queue.shift()!);
    }
    expect(queue.size).toBe(100);
    expect(out).toEqual(Array.from({ length: 9900 }, (_, i) => String(i)));
    expect(queue.shift()).toBe('9900');
  });
});
