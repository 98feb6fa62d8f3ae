import { describe, expect, it } from '@jest/globals';
import { TaskEvent, type EventType, type JsonObject } from '@robot-mcp-kit/core';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { type FeedEntry } from '@robot-mcp-kit/server/advanced';
import { EventFeed, FeedCursorError } from '../../../src/features/event-feed/event-feed.js';

let seq = 0;
function event(type: EventType, taskId = 't-1', payload: JsonObject = {}): TaskEvent {
  seq += 1;
  return TaskEvent.create({
    event_id: `e${seq}`,
    task_id: taskId,
    server: 's',
    tool: 'tool',
    type,
    seq,
    ts: new Date(Date.UTC(2026, 0, 1)),
    payload,
  });
}

const cursors = (entries: readonly { cursor: number }[]) => entries.map((e) => e.cursor);

describe('EventFeed ring and cursors', () => {
  it('numbers entries from 1 and reads the entries after a cursor, with the next cursor', () => {
    const feed = new EventFeed(10, new ManualClock());
    expect(feed.read(undefined, 100)).toEqual({ entries: [], cursor: 0, more: false });
    for (let i = 0; i < 5; i += 1) feed.appendEvent(event('progress'));
    expect(feed.newest).toBe(5);
    const page = feed.read(2, 2);
    expect(cursors(page.entries)).toEqual([3, 4]);
    expect(page).toMatchObject({ cursor: 4, more: true });
    expect(feed.read(page.cursor, 10)).toMatchObject({ cursor: 5, more: false });
    expect(feed.read(5, 10)).toEqual({ entries: [], cursor: 5, more: false });
    const first = feed.read(undefined, 1).entries[0] as FeedEntry;
    expect(first).toMatchObject({
      cursor: 1,
      kind: 'event',
      event: { type: 'progress', task_id: 't-1', seq: expect.any(Number) },
    });
  });

  it('reports entries overwritten before they were read as one lost entry with a count', () => {
    const feed = new EventFeed(3, new ManualClock());
    for (let i = 0; i < 7; i += 1) feed.appendEvent(event('progress'));
    expect(feed.oldest).toBe(5);
    const page = feed.read(1, 10);
    expect(page.entries[0]).toEqual({ cursor: 4, kind: 'lost', count: 3 });
    expect(cursors(page.entries)).toEqual([4, 5, 6, 7]);
    expect(feed.read(1, 1)).toMatchObject({ entries: [{ kind: 'lost', count: 3 }], cursor: 4, more: true });
    // without since: from the oldest held, nothing reported lost
    expect(cursors(feed.read(undefined, 10).entries)).toEqual([5, 6, 7]);
    expect(feed.at(4)).toBeUndefined();
  });

  it('refuses a cursor ahead of the newest (a restarted server)', () => {
    const feed = new EventFeed(3, new ManualClock());
    feed.appendEvent(event('progress'));
    expect(() => feed.read(9, 1)).toThrow(FeedCursorError);
    expect(() => feed.read(9, 1)).toThrow(/since 9 is ahead of the newest cursor 1/);
    expect(() => feed.wait({ start: 2, filter: {}, timeoutMs: 0 })).toThrow(FeedCursorError);
    expect(() => new EventFeed(0, new ManualClock())).toThrow(RangeError);
  });

  it('records cancellations as entries', () => {
    const feed = new EventFeed(3, new ManualClock());
    const entry = feed.appendCancelled('t-9', 'drive', Date.UTC(2026, 0, 2));
    expect(entry).toEqual({
      cursor: 1,
      kind: 'cancelled',
      task_id: 't-9',
      tool: 'drive',
      ts: '2026-01-02T00:00:00.000Z',
    });
  });
});

describe('EventFeed waits', () => {
  it('returns the first match already in the feed after the start cursor', async () => {
    const feed = new EventFeed(10, new ManualClock());
    feed.appendEvent(event('trigger_fired', 't-1', { trigger: { type: 'zone_entered', zone: 'a' } }));
    feed.appendEvent(event('progress'));
    feed.appendEvent(event('trigger_fired', 't-1', { trigger: { type: 'eta_below', seconds: 3 } }));
    await expect(feed.wait({ start: 0, filter: { type: 'eta_below' }, timeoutMs: 0 })).resolves.toMatchObject(
      {
        kind: 'entry',
        entry: { cursor: 3 },
      },
    );
    await expect(feed.wait({ start: 1, filter: { type: 'zone_entered' }, timeoutMs: 0 })).resolves.toEqual({
      kind: 'timeout',
    });
    await expect(
      feed.wait({ start: 0, filter: { type: 'trigger_fired' }, timeoutMs: 0 }),
    ).resolves.toMatchObject({
      entry: { cursor: 1 },
    });
  });

  it('a wait that starts before the event fires gets it; non-matching entries do not end it', async () => {
    const clock = new ManualClock();
    const feed = new EventFeed(10, clock);
    const waiting = feed.wait({
      start: feed.newest,
      filter: { type: 'watch_event', taskId: 't-2' },
      timeoutMs: 60_000,
    });
    expect(feed.waiting).toBe(1);
    feed.appendEvent(event('watch_event', 't-1'));
    feed.appendEvent(event('progress', 't-2'));
    feed.appendEvent(event('watch_event', 't-2', { person: true }));
    await expect(waiting).resolves.toMatchObject({
      kind: 'entry',
      entry: { cursor: 3, event: { payload: { person: true } } },
    });
    expect(feed.waiting).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('a wait for a task also ends when the task ends', async () => {
    const feed = new EventFeed(10, new ManualClock());
    const waiting = feed.wait({ start: 0, filter: { type: 'zone_entered', taskId: 't-1' }, timeoutMs: 1000 });
    feed.appendEvent(event('task_done', 't-2'));
    feed.appendEvent(event('task_failed', 't-1'));
    await expect(waiting).resolves.toMatchObject({ entry: { cursor: 2, event: { type: 'task_failed' } } });
    const cancelled = feed.wait({ start: 2, filter: { type: 'progress', taskId: 't-3' }, timeoutMs: 1000 });
    feed.appendCancelled('t-3', 'drive', 0);
    await expect(cancelled).resolves.toMatchObject({ entry: { kind: 'cancelled', task_id: 't-3' } });
    await expect(feed.wait({ start: 0, filter: { type: 'cancelled' }, timeoutMs: 0 })).resolves.toMatchObject(
      {
        entry: { cursor: 3 },
      },
    );
  });

  it('times out on the clock', async () => {
    const clock = new ManualClock();
    const feed = new EventFeed(10, clock);
    let outcome: unknown;
    void feed.wait({ start: 0, filter: {}, timeoutMs: 30_000 }).then((o) => (outcome = o));
    await clock.advance(29_999);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    expect(outcome).toEqual({ kind: 'timeout' });
    expect(feed.waiting).toBe(0);
  });

  it('reports a loss at once when the start cursor was overwritten', async () => {
    const feed = new EventFeed(2, new ManualClock());
    for (let i = 0; i < 5; i += 1) feed.appendEvent(event('progress'));
    await expect(feed.wait({ start: 1, filter: { type: 'task_done' }, timeoutMs: 1000 })).resolves.toEqual({
      kind: 'entry',
      entry: { cursor: 3, kind: 'lost', count: 2 },
    });
  });

  it('ends with aborted on the signal, ended when told, closed on close', async () => {
    const clock = new ManualClock();
    const feed = new EventFeed(2, clock);
    const controller = new AbortController();
    const aborted = feed.wait({ start: 0, filter: {}, timeoutMs: 1000, signal: controller.signal });
    controller.abort();
    await expect(aborted).resolves.toEqual({ kind: 'aborted' });
    await expect(
      feed.wait({ start: 0, filter: {}, timeoutMs: 1000, signal: controller.signal }),
    ).resolves.toEqual({
      kind: 'aborted',
    });
    await expect(
      feed.wait({ start: 0, filter: {}, timeoutMs: 1000, alreadyEnded: () => true }),
    ).resolves.toEqual({
      kind: 'ended',
    });
    const open = feed.wait({ start: 0, filter: {}, timeoutMs: 1000 });
    feed.close();
    await expect(open).resolves.toEqual({ kind: 'closed' });
    await expect(feed.wait({ start: 0, filter: {}, timeoutMs: 1000 })).resolves.toEqual({ kind: 'closed' });
    expect(clock.pending).toBe(0);
  });
});
