import { Fifo } from '../../src/events/fifo.js';

describe('Fifo', () => {
  it('is first in, first out', () => {
    const queue = new Fifo<string>();
    expect(queue.shift()).toBeUndefined();
    queue.push('a');
    queue.push('b');
    expect(queue.length).toBe(2);
    expect(queue.shift()).toBe('a');
    queue.push('c');
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(['b', 'c', undefined]);
    expect(queue.length).toBe(0);
  });

  it('keeps order across compactions', () => {
    const queue = new Fifo<string>();
    const out: string[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      queue.push(String(i));
      if (queue.length > 100) out.push(queue.shift()!);
    }
    expect(queue.length).toBe(100);
    expect(out).toEqual(Array.from({ length: 9900 }, (_, i) => String(i)));
    expect(queue.shift()).toBe('9900');
  });
});
