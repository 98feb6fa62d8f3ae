import { ContractValidationError, TaskFailure, TaskInfo, parseTaskInfo } from '@robot-mcp-kit/core';

const created = new Date(Date.UTC(2026, 5, 12, 14, 3, 0, 5));
const updated = new Date(Date.UTC(2026, 5, 12, 14, 4, 0, 0));

describe('TaskInfo wire form', () => {
  it('writes every field in spec order, null where unset', () => {
    const info = TaskInfo.create({
      task_id: 'nav-7f3a2b',
      server: 'navigation',
      tool: 'navigate_to',
      state: 'running',
      created_at: created,
      updated_at: updated,
    });
    expect(JSON.stringify(info)).toBe(
      '{"task_id":"nav-7f3a2b","server":"navigation","tool":"navigate_to","state":"running",' +
        '"created_at":"2026-06-12T14:03:00.005Z","updated_at":"2026-06-12T14:04:00.000Z",' +
        '"triggers":[],"est_duration_s":null,"progress":null,"result":null,"failure":null}',
    );
  });

  it('writes a failed task with its failure in spec order', () => {
    const info = TaskInfo.create({
      task_id: 'nav-7f3a2b',
      server: 'navigation',
      tool: 'navigate_to',
      state: 'failed',
      created_at: created,
      updated_at: updated,
      triggers: [{ type: 'eta_below', seconds: 10 }],
      est_duration_s: 60,
      progress: { percent: 40 },
      failure: TaskFailure.create({
        error_code: 'DOOR_CLOSED',
        message: 'The door is closed.',
        recoverable: true,
        suggestions: ['ask_reception'],
      }),
    });
    const json =
      '{"task_id":"nav-7f3a2b","server":"navigation","tool":"navigate_to","state":"failed",' +
      '"created_at":"2026-06-12T14:03:00.005Z","updated_at":"2026-06-12T14:04:00.000Z",' +
      '"triggers":[{"type":"eta_below","seconds":10}],"est_duration_s":60,"progress":{"percent":40},' +
      '"result":null,"failure":{"error_code":"DOOR_CLOSED","message":"The door is closed.",' +
      '"recoverable":true,"suggestions":["ask_reception"]}}';
    expect(JSON.stringify(info)).toBe(json);
    const parsed = parseTaskInfo(json);
    expect(parsed.failure).toBeInstanceOf(TaskFailure);
    expect(parsed.created_at).toBeInstanceOf(Date);
    expect(JSON.stringify(parsed)).toBe(json);
  });

  it('round-trips a succeeded task', () => {
    const json = JSON.stringify(
      TaskInfo.create({
        task_id: 'perc-19c0de',
        server: 'perception',
        tool: 'find_object',
        state: 'succeeded',
        created_at: created,
        updated_at: updated,
        result: { found: true, where: { x: 1.5, y: -2 } },
      }),
    );
    expect(JSON.stringify(parseTaskInfo(json))).toBe(json);
  });

  it('accepts missing optional fields and fills the defaults', () => {
    const parsed = parseTaskInfo({
      task_id: 't-1',
      server: 's',
      tool: 'x',
      state: 'cancelled',
      created_at: '2026-06-12T14:03:00Z',
      updated_at: '2026-06-12T14:03:00.123456+00:00',
    });
    expect(parsed.toJSON()).toEqual({
      task_id: 't-1',
      server: 's',
      tool: 'x',
      state: 'cancelled',
      created_at: '2026-06-12T14:03:00.000Z',
      updated_at: '2026-06-12T14:03:00.123Z',
      triggers: [],
      est_duration_s: null,
      progress: null,
      result: null,
      failure: null,
    });
  });

  it('lists every bad field', () => {
    expect.assertions(3);
    try {
      parseTaskInfo({
        task_id: '',
        server: 's',
        tool: 'x',
        state: 'sleeping',
        created_at: 'yesterday',
        failure: 'boom',
      });
    } catch (err) {
      expect(err).toBeInstanceOf(ContractValidationError);
      expect((err as ContractValidationError).code).toBe('CONTRACT_INVALID');
      const fields = (err as ContractValidationError).issues.map((i) => i.field).sort();
      expect(fields).toEqual(['created_at', 'failure', 'state', 'task_id', 'updated_at']);
    }
  });

  it('reports a bad nested failure field', () => {
    expect.assertions(1);
    try {
      parseTaskInfo({
        task_id: 't',
        server: 's',
        tool: 'x',
        state: 'failed',
        created_at: '2026-06-12T14:03:00Z',
        updated_at: '2026-06-12T14:03:00Z',
        failure: { error_code: 'X', message: 'm', recoverable: 'yes' },
      });
    } catch (err) {
      expect((err as { issues: { field: string }[] }).issues.map((i) => i.field)).toContain(
        'failure.recoverable',
      );
    }
  });
});
