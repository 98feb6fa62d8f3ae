import { describe, expect, it } from '@jest/globals';
import { TaskEvent, TaskFailure, TaskInfo } from '@robot-mcp-kit/core';
import { formatEvent, formatGap, formatReport, formatTask, summarize } from '../src/event-line.formatter.js';

const ts = new Date('2026-01-01T00:00:00Z');
const event = (type: TaskEvent['type'], seq: number, payload: TaskEvent['payload']): TaskEvent =>
  TaskEvent.create({
    event_id: `e${seq}`,
    task_id: 't1',
    server: 'sleeper',
    tool: 'sleep_task',
    type,
    seq,
    ts,
    payload,
  });
const info = (
  state: TaskInfo['state'],
  extra: Partial<Parameters<typeof TaskInfo.create>[0]> = {},
): TaskInfo =>
  TaskInfo.create({
    task_id: 't1',
    server: 'sleeper',
    tool: 'sleep_task',
    state,
    created_at: ts,
    updated_at: ts,
    ...extra,
  });

describe('event lines', () => {
  it('summarizes a payload as key=value pairs, JSON for anything that is not a plain word', () => {
    expect(summarize({ eta_s: 0.5, zone: 'kitchen', note: 'two words', ok: true, none: null })).toBe(
      'eta_s=0.5 zone=kitchen note="two words" ok=true none=null',
    );
    expect(summarize({ trigger: { type: 'eta_below', seconds: 1 } })).toBe(
      'trigger={"type":"eta_below","seconds":1}',
    );
    expect(summarize({ text: 'line\nbreak' })).toBe('text="line\\nbreak"');
    expect(summarize({})).toBe('');
    expect(summarize(null)).toBe('');
    const long = summarize({ blob: 'x'.repeat(500) });
    expect(long).toHaveLength(160);
    expect(long.endsWith('…')).toBe(true);
  });

  it('prints one line per event: server/task, seq, type, payload summary', () => {
    expect(formatEvent(event('progress', 3, { eta_s: 0.5, percent: 66.67 }))).toBe(
      'event sleeper/t1 seq=3 progress eta_s=0.5 percent=66.67',
    );
    expect(formatEvent(event('task_done', 5, {}), true)).toBe('event sleeper/t1 seq=5 task_done (late)');
  });

  it('prints gaps', () => {
    expect(formatGap({ server: 'sleeper', task_id: 't1', expected: 1, got: 4 })).toBe(
      'gap sleeper/t1 missed seq 1..3 (got 4): reconciling',
    );
    expect(formatGap({ server: 'sleeper', task_id: 't1', expected: 2, got: 3 })).toBe(
      'gap sleeper/t1 missed seq 2 (got 3): reconciling',
    );
  });

  it('prints a task in each state', () => {
    expect(formatTask(info('running', { progress: { percent: 10 } }))).toBe(
      'task sleeper/t1 sleep_task running progress={"percent":10}',
    );
    expect(formatTask(info('running'))).toBe('task sleeper/t1 sleep_task running');
    expect(formatTask(info('succeeded', { result: { slept_s: 3 } }))).toBe(
      'task sleeper/t1 sleep_task succeeded result={"slept_s":3}',
    );
    const failure = TaskFailure.create({
      error_code: 'FAKE_FAILURE',
      message: 'asked to fail',
      recoverable: false,
    });
    expect(formatTask(info('failed', { failure }))).toBe(
      'task sleeper/t1 sleep_task failed FAKE_FAILURE: asked to fail',
    );
    expect(formatTask(info('cancelled', { tool: '' }))).toBe('task sleeper/t1 ? cancelled');
  });

  it('prints a report: a summary, each task once, each error', () => {
    const running = info('running');
    const other = TaskInfo.create({
      ...running.toJSON(),
      task_id: 't2',
      created_at: ts,
      updated_at: ts,
      failure: null,
    });
    const lines = formatReport({
      running: [running, other],
      tasks: new Map([['t1', running]]),
      lost: [],
      unresolved: [{ server: 'navigation', task_id: 'n1' }],
      errors: [
        { server: 'navigation', tool: 'get_task', task_id: 'n1', error: 'timeout after 10000 ms' },
        { server: 'navigation', tool: 'list_tasks', error: 'not connected' },
      ],
    });
    expect(lines).toEqual([
      'reconciled: 2 running, 1 tracked answered (0 lost), 1 unresolved, 2 errors',
      'task sleeper/t1 sleep_task running',
      'task sleeper/t2 sleep_task running',
      'error navigation get_task n1: timeout after 10000 ms',
      'error navigation list_tasks: not connected',
    ]);
  });
});
