import { describe, expect, it } from '@jest/globals';
import { TaskInfo, type TaskState } from '@robot-mcp-kit/core';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { type SessionContext } from '@robot-mcp-kit/server/advanced';
import { type SessionHandle, SessionHandleTable } from '../../src/task-methods/session-handles.table.js';

const retention = { ttl: 60_000, pollInterval: 100 };

function done(taskId: string, state: TaskState = 'succeeded'): TaskInfo {
  const at = new Date('2026-01-01T00:00:00Z');
  return TaskInfo.create({
    task_id: taskId,
    server: 'arm',
    tool: 'move',
    state,
    created_at: at,
    updated_at: at,
  });
}

/** Counts every read of `entry.final` (the check the old capacity walk made on each entry). */
function countFinalReads(entry: SessionHandle, counter: { reads: number }): void {
  let value = entry.final;
  Object.defineProperty(entry, 'final', {
    get() {
      counter.reads += 1;
      return value;
    },
    set(next: TaskInfo | undefined) {
      value = next;
    },
  });
}

describe('SessionHandleTable at scale', () => {
  it('starts 50,000 tasks past its capacity without visiting the running ones', () => {
    const session: SessionContext = { id: 's' };
    const expired: string[] = [];
    const index = new SessionHandleTable(new ManualClock(), 1000, (e) => expired.push(e.taskId));
    const counter = { reads: 0 };
    for (let i = 0; i < 50_000; i += 1) {
      countFinalReads(index.ensure(`t${i}`, session, retention), counter);
    }
    // A walk over the running entries on each start past 1,000 would read `final` ~49 million times.
    expect(counter.reads).toBe(0);
    expect(index.size).toBe(50_000); // running tasks never expire early
    expect(expired).toEqual([]);
  });

  it('makes room by expiring the task that finished first, one per start, leaving running ones', () => {
    const session: SessionContext = { id: 's' };
    const clock = new ManualClock();
    const expired: string[] = [];
    const index = new SessionHandleTable(clock, 3, (e) => expired.push(e.taskId));
    const [a, b, c] = ['a', 'b', 'c'].map((id) => index.ensure(id, session, retention));
    index.finish(c!, done('c'));
    index.finish(a!, done('a', 'failed'));
    const counter = { reads: 0 };
    countFinalReads(b!, counter);
    index.ensure('d', session, retention);
    expect(expired).toEqual(['c']);
    index.ensure('e', session, retention);
    expect(expired).toEqual(['c', 'a']);
    index.ensure('f', session, retention); // only running ones left: over capacity, nothing expires
    expect(expired).toEqual(['c', 'a']);
    expect(counter.reads).toBe(0);
    expect(index.page(session, undefined, 10).entries.map((e) => e.taskId)).toEqual(['b', 'd', 'e', 'f']);
    expect(clock.pending).toBe(0); // the expired tasks' TTL timers were stopped
  });

  it('keeps each session apart: pages and session close touch only its own tasks', () => {
    const one: SessionContext = { id: 'one' };
    const two: SessionContext = { id: 'two' };
    const index = new SessionHandleTable(new ManualClock(), 100, () => undefined);
    for (let i = 0; i < 6; i += 1) index.ensure(`t${i}`, i % 2 === 0 ? one : two, retention);
    const first = index.page(two, undefined, 2);
    expect(first.entries.map((e) => e.taskId)).toEqual(['t1', 't3']);
    expect(index.page(two, first.nextCursor, 2).entries.map((e) => e.taskId)).toEqual(['t5']);
    index.dropSession(one);
    expect(index.size).toBe(3);
    expect(index.page(one, undefined, 10).entries).toEqual([]);
    expect(index.get('t1', two)?.taskId).toBe('t1');
    expect(index.get('t1', one)).toBeUndefined();
  });
});
