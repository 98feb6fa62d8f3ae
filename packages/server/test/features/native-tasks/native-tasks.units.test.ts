import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  ConfigError,
  TaskFailure,
  TaskInfo,
  type TaskState,
  TriggerValidationError,
} from '@robot-mcp-kit/core';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { ToolArgumentsError } from '@robot-mcp-kit/server';
import { NATIVE_TASKS_DEFAULTS, type SessionContext } from '@robot-mcp-kit/server/advanced';
import { ConcurrencyLimitError } from '../../../src/tools/task-starter.js';
import {
  grantedTtl,
  resolveNativeTasksOptions,
} from '../../../src/features/native-tasks/native-tasks.options.js';
import { TaskStartError } from '../../../src/features/native-tasks/native-task.errors.js';
import {
  InvalidTaskCursorError,
  TaskWaitAbortedError,
} from '../../../src/task-methods/task-method.errors.js';
import { SessionHandleTable } from '../../../src/task-methods/session-handles.table.js';
import {
  progressSummary,
  progressValues,
  statusMessageOf,
  toProtocolTask,
} from '../../../src/task-views/task-status.mapper.js';
import { taskPayloadResult } from '../../../src/task-views/task-payload.builder.js';

function info(state: TaskState, extra: Partial<Parameters<typeof TaskInfo.create>[0]> = {}): TaskInfo {
  return TaskInfo.create({
    task_id: 'arm-1',
    server: 'arm',
    tool: 'move',
    state,
    created_at: new Date('2026-01-01T00:00:00Z'),
    updated_at: new Date('2026-01-01T00:00:05Z'),
    ...extra,
  });
}

describe('resolveNativeTasksOptions', () => {
  it('applies the defaults and lets later layers win', () => {
    expect(resolveNativeTasksOptions()).toEqual(NATIVE_TASKS_DEFAULTS);
    expect(
      resolveNativeTasksOptions({ pageSize: 5 }, undefined, { pageSize: 7, progressNotifications: false }),
    ).toEqual({
      ...NATIVE_TASKS_DEFAULTS,
      pageSize: 7,
      progressNotifications: false,
    });
  });

  it('clamps the default TTL into explicit bounds but refuses an explicit one outside them', () => {
    expect(resolveNativeTasksOptions({ maxTtlMs: 5000 }).defaultTtlMs).toBe(5000);
    expect(() => resolveNativeTasksOptions({ maxTtlMs: 5000, defaultTtlMs: 6000 })).toThrow(
      /nativeTasks\.defaultTtlMs: must lie between/,
    );
    expect(() => resolveNativeTasksOptions({ minTtlMs: 10, maxTtlMs: 5 })).toThrow(/nativeTasks\.minTtlMs/);
  });

  it('names the bad option', () => {
    expect(() => resolveNativeTasksOptions('fast')).toThrow(ConfigError);
    expect(() => resolveNativeTasksOptions([])).toThrow(/nativeTasks: expected an object/);
    expect(() => resolveNativeTasksOptions({ pageSize: 0 })).toThrow(
      /nativeTasks\.pageSize: expected a positive integer, got 0/,
    );
    expect(() => resolveNativeTasksOptions({ pollIntervalMs: '1s' })).toThrow(/got "1s"/);
    expect(() => resolveNativeTasksOptions({ maxTasks: {} })).toThrow(/got an object/);
    expect(() => resolveNativeTasksOptions({ progressNotifications: 'yes' })).toThrow(
      /nativeTasks\.progressNotifications: expected true or false/,
    );
  });

  it('grants the default for no TTL and clamps the rest', () => {
    const options = { ...NATIVE_TASKS_DEFAULTS, minTtlMs: 100, maxTtlMs: 1000, defaultTtlMs: 500 };
    expect(grantedTtl(undefined, options)).toBe(500);
    expect(grantedTtl(null, options)).toBe(500);
    expect(grantedTtl(Number.NaN, options)).toBe(500);
    expect(grantedTtl(5, options)).toBe(100);
    expect(grantedTtl(700.4, options)).toBe(700);
    expect(grantedTtl(1e9, options)).toBe(1000);
  });
});

describe('status mapping', () => {
  it('summarises progress: message first, then percent and eta, else compact JSON', () => {
    expect(progressSummary({ message: '  docking  ', percent: 10 })).toBe('docking');
    expect(progressSummary({ percent: 59.96, eta_s: 22.44 })).toBe('60% — eta 22.4 s');
    expect(progressSummary({ eta_s: 3 })).toBe('eta 3 s');
    expect(progressSummary({ zone: 'hall', message: '' })).toBe('{"zone":"hall","message":""}');
    expect(progressSummary({ blob: 'x'.repeat(500) })).toHaveLength(200);
    expect(progressSummary({ message: 'y'.repeat(600) })).toMatch(/^y{499}…$/);
  });

  it('gives percent of 100 when there is one, else the counter', () => {
    expect(progressValues({ percent: 40 }, 3)).toEqual({ progress: 40, total: 100, message: '40%' });
    expect(progressValues({ percent: Infinity, step: 1 }, 3)).toEqual({
      progress: 3,
      message: '{"percent":null,"step":1}',
    });
  });

  it('maps every state and its status message', () => {
    const failure = TaskFailure.create({ error_code: 'STUCK', message: 'Wheel stuck.' });
    expect(
      toProtocolTask(info('running', { progress: { percent: 50 } }), { ttl: 1000, pollInterval: 200 }),
    ).toEqual({
      taskId: 'arm-1',
      status: 'working',
      statusMessage: '50%',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUpdatedAt: '2026-01-01T00:00:05.000Z',
      ttl: 1000,
      pollInterval: 200,
    });
    expect(toProtocolTask(info('running'), { ttl: 1, pollInterval: 1 })).not.toHaveProperty('statusMessage');
    expect(toProtocolTask(info('succeeded'), { ttl: 1, pollInterval: 1 }).status).toBe('completed');
    expect(statusMessageOf(info('succeeded'))).toBeUndefined();
    expect(statusMessageOf(info('failed', { failure }))).toBe('STUCK: Wheel stuck.');
    expect(statusMessageOf(info('failed'))).toBe('The task failed.');
    expect(statusMessageOf(info('cancelled'))).toBe('The task was cancelled.');
  });

  it('builds tasks/result payloads and refuses a running task', () => {
    expect(taskPayloadResult(info('succeeded')).structuredContent).toEqual({});
    const failed = taskPayloadResult(info('failed'));
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ error_code: 'INTERNAL', recoverable: false });
    expect(() => taskPayloadResult(info('running'))).toThrow(/still running/);
  });
});

describe('TaskStartError', () => {
  it('maps what refused the start to a protocol error code, keeping the message', () => {
    const args = new TaskStartError(
      'move',
      new ToolArgumentsError('move', ['steps must not be less than 1']),
    );
    expect(args.code).toBe(ErrorCode.InvalidParams);
    expect(args.message).toMatch(/Invalid arguments for move: steps/);
    expect(
      new TaskStartError('move', new TriggerValidationError([{ field: 'triggers[0]', problems: ['bad'] }]))
        .code,
    ).toBe(ErrorCode.InvalidParams);
    const busy = new TaskStartError('move', new ConcurrencyLimitError('move', 1, ['arm-1']));
    expect(busy.code).toBe(ErrorCode.InvalidRequest);
    expect(busy.message).toMatch(/cancel_task/);
    const boom = new TaskStartError('move', new Error('boom'));
    expect(boom.code).toBe(ErrorCode.InternalError);
    expect(boom.message).toMatch(/move failed to start: boom/);
    expect(new TaskStartError('move', 'odd').message).toMatch(/odd/);
  });
});

describe('SessionHandleTable', () => {
  const session: SessionContext = { id: 's1' };
  const retention = { ttl: 1000, pollInterval: 100 };

  it('refuses cursors it did not hand out', () => {
    const index = new SessionHandleTable(new ManualClock(), 10, () => undefined);
    for (const cursor of [
      '',
      'bogus',
      Buffer.from('after:x').toString('base64url'),
      Buffer.from('after:1').toString('base64') + '=',
    ]) {
      expect(() => index.page(session, cursor, 5)).toThrow(InvalidTaskCursorError);
    }
    const entry = index.ensure('t1', session, retention);
    index.ensure('t2', session, retention);
    const first = index.page(session, undefined, 1);
    expect(first.entries).toEqual([entry]);
    expect(index.page(session, first.nextCursor, 5).entries.map((e) => e.taskId)).toEqual(['t2']);
    expect(index.ensure('t1', session, retention)).toBe(entry);
  });

  it('releases waiters when a task ends, is dropped, or the wait is aborted', async () => {
    const clock = new ManualClock();
    const expired: string[] = [];
    const index = new SessionHandleTable(clock, 10, (e) => expired.push(e.taskId));
    const a = index.ensure('a', session, retention);
    const b = index.ensure('b', session, retention);
    const c = index.ensure('c', session, retention);
    const aborted = new AbortController();
    aborted.abort();
    await expect(index.waitForEnd(a, aborted.signal)).rejects.toBeInstanceOf(TaskWaitAbortedError);
    const later = new AbortController();
    const waitingA = index.waitForEnd(a, later.signal);
    const waitingC = index.waitForEnd(c, later.signal);
    const waitingB = index.waitForEnd(b, new AbortController().signal);
    index.finish(a, info('succeeded'));
    await waitingA;
    index.remove(b);
    await waitingB;
    later.abort();
    await expect(waitingC).rejects.toBeInstanceOf(TaskWaitAbortedError);
    await expect(index.waitForEnd(b, later.signal)).resolves.toBeUndefined();
    await clock.advance(1000);
    expect(expired).toEqual(['a']);
    index.clear();
    expect(index.size).toBe(0);
    expect(clock.pending).toBe(0);
  });
});
