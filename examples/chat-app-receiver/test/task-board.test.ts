import { describe, expect, it } from '@jest/globals';
import { TaskEvent, TaskInfo } from '@robot-mcp-kit/core';
import { type ReconcileReport, serverRestartedTask } from '@robot-mcp-kit/receiver';
import { TaskBoard } from '../src/task-board.js';

const ts = new Date('2026-01-01T00:00:00Z');
const event = (task: string, type: TaskEvent['type'], seq: number): TaskEvent =>
  TaskEvent.create({
    event_id: `${task}-${seq}`,
    task_id: task,
    server: 'sleeper',
    tool: 'sleep_task',
    type,
    seq,
    ts,
    payload: {},
  });
const info = (task: string, state: TaskInfo['state'], server = 'sleeper'): TaskInfo =>
  TaskInfo.create({ task_id: task, server, tool: 'sleep_task', state, created_at: ts, updated_at: ts });
const report = (parts: Partial<ReconcileReport>): ReconcileReport => ({
  running: [],
  tasks: new Map(),
  lost: [],
  unresolved: [],
  errors: [],
  ...parts,
});

function board(): { board: TaskBoard; lines: string[] } {
  const lines: string[] = [];
  return { board: new TaskBoard((line) => lines.push(line)), lines };
}

describe('TaskBoard', () => {
  it('prints each event and keeps a task open until task_done or task_failed', () => {
    const { board: b, lines } = board();
    b.record(event('a', 'progress', 1));
    b.record(event('b', 'progress', 1));
    expect(b.open()).toEqual([
      { server: 'sleeper', task_id: 'a', tool: 'sleep_task' },
      { server: 'sleeper', task_id: 'b', tool: 'sleep_task' },
    ]);
    b.record(event('a', 'task_done', 2));
    b.record(event('b', 'task_failed', 3));
    b.record(event('b', 'progress', 2), true);
    expect(b.open()).toEqual([]);
    expect(b.get('sleeper', 'a')).toMatchObject({ state: 'succeeded', lastSeq: 2 });
    expect(b.get('sleeper', 'b')).toMatchObject({ state: 'failed', lastSeq: 3 });
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe('event sleeper/b seq=2 progress (late)');
  });

  it('tracks a gap’s task and settles tasks from a reconcile report', () => {
    const { board: b, lines } = board();
    b.gap({ server: 'navigation', task_id: 'n1', expected: 1, got: 3 });
    expect(b.open()).toEqual([{ server: 'navigation', task_id: 'n1' }]);
    b.record(event('a', 'progress', 1));
    const lost = serverRestartedTask({ server: 'sleeper', task_id: 'a' }, ts.getTime());
    b.reconciled(
      report({
        running: [info('n1', 'running', 'navigation'), info('c', 'running')],
        tasks: new Map([['a', lost]]),
        lost: [lost],
      }),
    );
    expect(lines[0]).toBe('gap navigation/n1 missed seq 1..2 (got 3): reconciling');
    expect(lines).toContain('reconciled: 2 running, 1 tracked answered (1 lost), 0 unresolved, 0 errors');
    expect(b.get('sleeper', 'a')?.state).toBe('failed');
    // The running tasks the app did not know are adopted; the gap's task learns its tool.
    expect(b.open()).toEqual([
      { server: 'navigation', task_id: 'n1', tool: 'sleep_task' },
      { server: 'sleeper', task_id: 'c', tool: 'sleep_task' },
    ]);
  });

  it('keeps a finished task finished when an older report still says running', () => {
    const { board: b } = board();
    b.record(event('a', 'task_done', 4));
    b.reconciled(report({ running: [info('a', 'running')] }));
    expect(b.get('sleeper', 'a')?.state).toBe('succeeded');
    expect(b.open()).toEqual([]);
  });

  it('forgets the oldest finished tasks past 10 000 and never an open one', () => {
    const { board: b } = board();
    b.record(event('open', 'progress', 1));
    for (let i = 0; i < 10_001; i += 1) b.record(event(`t${i}`, 'task_done', 1));
    expect(b.get('sleeper', 'open')?.state).toBe('running');
    expect(b.get('sleeper', 't0')).toBeUndefined();
    expect(b.get('sleeper', 't1')).toBeUndefined();
    expect(b.get('sleeper', 't2')?.state).toBe('succeeded');
  });
});
