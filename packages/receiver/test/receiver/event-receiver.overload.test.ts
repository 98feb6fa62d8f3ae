import { setImmediate as turn } from 'node:timers/promises';
import { EventPoster, type EventType, type TaskEvent } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { type SeqGap, coalescedSeqsOf, createEventReceiver } from '@robot-mcp-kit/receiver';
import { SECRET, listen, makeEvent } from '../receiver-test.helpers.js';

const TASKS = 2000;
const ROUNDS = 10;

/** The seqs of one task: what was posted, delivered, named by a marker, and reported missing. */
interface TaskBook {
  posted: number;
  delivered: Set<number>;
  named: Set<number>;
  gaps: Set<number>;
  /** Seqs the poster coalesced, and the ones it dropped for good (any other reason). */
  coalesced: Set<number>;
  dropped: Set<number>;
  done: number;
}

describe('overload policy end to end (issue 17)', () => {
  it('keeps every terminal event of 2,000 tasks through a full queue; coalesced seqs are named, gaps honest', async () => {
    const books = new Map<string, TaskBook>();
    const book = (task: string): TaskBook => {
      let b = books.get(task);
      if (!b) {
        b = {
          ...{ posted: 0, delivered: new Set<number>(), named: new Set<number>(), gaps: new Set<number>() },
          ...{ coalesced: new Set<number>(), dropped: new Set<number>(), done: 0 },
        };
        books.set(task, b);
      }
      return b;
    };
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: async (event: TaskEvent) => {
        await turn(); // an app that takes a little while per event
        const b = book(event.task_id);
        b.delivered.add(event.seq);
        for (const [from, to] of coalescedSeqsOf(event) ?? [])
          for (let s = from; s <= to; s += 1) b.named.add(s);
        if (event.type === 'task_done') b.done += 1;
      },
      onGap: (gap: SeqGap) => {
        for (let s = gap.expected; s < gap.got; s += 1) book(gap.task_id).gaps.add(s);
      },
    });
    const app = await listen(receiver.handler);
    const logger = new MemoryLogger();
    const transport = new HttpEventTransport({ url: app.url, secret: SECRET, serverName: 'sleeper' });
    const poster = new EventPoster({ serverName: 'sleeper', transport, maxQueue: TASKS, logger });
    const dropKinds = new Map<string, number>();
    // White-box probe of the policy: how many progress events wait when something else is dropped.
    const queue = (poster as unknown as { queue: { waiting: { count(cls: string): number } } }).queue;
    let droppedWhileProgressWaited = 0;
    poster.subscribeDrops((e, reason) => {
      book(e.task_id)[reason === 'coalesced' ? 'coalesced' : 'dropped'].add(e.seq);
      if (reason === 'coalesced') return;
      const kind = `${e.type}:${reason}`;
      dropKinds.set(kind, (dropKinds.get(kind) ?? 0) + 1);
      if (queue.waiting.count('progress') > 0) droppedWhileProgressWaited += 1;
    });
    try {
      const post = (task: string, type: EventType): void => {
        const b = book(task);
        b.posted += 1;
        poster.post(makeEvent({ task_id: task, seq: b.posted, type, payload: { round: b.posted } }));
      };
      const ids = Array.from({ length: TASKS }, (_, i) => `slee-${i.toString(16).padStart(6, '0')}`);
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const [i, task] of ids.entries()) {
          post(task, 'progress');
          if ((i + round) % 7 === 0) post(task, i % 2 === 0 ? 'trigger_fired' : 'watch_event');
        }
        await turn();
      }
      for (const task of ids) post(task, 'task_done');
      expect(await poster.flush(120_000)).toBe(true);
      await receiver.close();

      const stats = poster.stats;
      expect(stats.coalesced).toBeGreaterThan(TASKS); // the queue really overflowed
      // No terminal event is ever dropped; trigger_fired / watch_event only once no progress is
      // left to coalesce (a queue of 2,000 for 2,000 tasks cannot hold everything).
      expect(dropKinds.get('task_done:queue_full')).toBeUndefined();
      expect(droppedWhileProgressWaited).toBe(0);
      expect(stats.dropped).toBe([...dropKinds.values()].reduce((n, c) => n + c, 0));
      expect([...books.values()].every((b) => b.done === 1)).toBe(true);
      for (const [task, b] of books) {
        for (let seq = 1; seq <= b.posted; seq += 1) {
          const delivered = b.delivered.has(seq);
          const named = b.named.has(seq);
          // A gap report spans expected..got-1 and may enclose named seqs: those are not missing.
          const missing = b.gaps.has(seq) && !named;
          // Honest: every seq is delivered, named by a marker, or reported missing — a marker or a
          // gap never covers a delivered seq; the named seqs are exactly the coalesced ones and
          // the missing ones exactly those the poster dropped for good.
          const accounted = Number(delivered) + Number(named) + Number(missing);
          const honest = accounted === 1 && named === b.coalesced.has(seq) && missing === b.dropped.has(seq);
          if (!honest)
            throw new Error(
              `${task} seq ${seq}: delivered ${delivered}, named ${named}, gap ${b.gaps.has(seq)}, ` +
                `coalesced ${b.coalesced.has(seq)}, dropped ${b.dropped.has(seq)}`,
            );
        }
      }
      const named = [...books.values()].reduce((n, b) => n + b.named.size, 0);
      expect(receiver.stats().coalesced).toBe(named);
      expect(named).toBeGreaterThan(0);
      // Drops are summarized, not one line per event.
      expect(logger.entries.filter((e) => e.level === 'error' || e.level === 'warn').length).toBeLessThan(20);
    } finally {
      await poster.aclose({ timeoutMs: 0 });
      await app.close();
    }
  }, 180_000);
});
