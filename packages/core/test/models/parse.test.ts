import { ContractValidationError, type FieldIssue, parseTaskEvent } from '@robot-mcp-kit/core';

const valid = {
  schema_version: 1,
  event_id: 'e-1',
  task_id: 'nav-7f3a2b',
  server: 'navigation',
  tool: 'navigate_to',
  type: 'progress',
  seq: 1,
  ts: '2026-06-12T14:03:00.123Z',
  payload: { percent: 5 },
};

function issuesOf(input: unknown): FieldIssue[] {
  try {
    parseTaskEvent(input);
  } catch (err) {
    expect(err).toBeInstanceOf(ContractValidationError);
    expect((err as ContractValidationError).code).toBe('CONTRACT_INVALID');
    return [...(err as ContractValidationError).issues];
  }
  throw new Error('expected parseTaskEvent to throw');
}

function fieldsOf(input: unknown): string[] {
  return issuesOf(input)
    .map((i) => i.field)
    .sort();
}

describe('parseTaskEvent', () => {
  it('accepts a valid event', () => {
    expect(parseTaskEvent(valid).seq).toBe(1);
  });

  it('reports a missing event_id', () => {
    const { event_id: _omit, ...rest } = valid;
    expect(fieldsOf(rest)).toEqual(['event_id']);
  });

  it('reports a bad type', () => {
    const issues = issuesOf({ ...valid, type: 'progress_update' });
    expect(issues.map((i) => i.field)).toEqual(['type']);
    expect(issues[0]!.problems.join(' ')).toMatch(/type/);
  });

  it('reports seq 0, a negative seq and a fractional seq', () => {
    expect(fieldsOf({ ...valid, seq: 0 })).toEqual(['seq']);
    expect(fieldsOf({ ...valid, seq: -3 })).toEqual(['seq']);
    expect(fieldsOf({ ...valid, seq: 1.5 })).toEqual(['seq']);
    expect(fieldsOf({ ...valid, seq: '1' })).toEqual(['seq']);
  });

  it('reports a bad ts', () => {
    for (const ts of ['yesterday', '2026-06-12', '2026-13-45T99:00:00Z', 1765532000, null]) {
      expect(fieldsOf({ ...valid, ts })).toEqual(['ts']);
    }
  });

  it('reports a payload that is an array or not an object', () => {
    expect(fieldsOf({ ...valid, payload: [1, 2] })).toEqual(['payload']);
    expect(fieldsOf({ ...valid, payload: 'x' })).toEqual(['payload']);
  });

  it('lists each bad field at once', () => {
    const { event_id: _omit, ...rest } = valid;
    expect(fieldsOf({ ...rest, type: 'nope', seq: 0, ts: 'bad', payload: [] })).toEqual([
      'event_id',
      'payload',
      'seq',
      'ts',
      'type',
    ]);
  });

  it('reports malformed JSON and non-object bodies', () => {
    expect(issuesOf('{"event_id": ')[0]).toEqual(
      expect.objectContaining({ field: '(body)', problems: [expect.stringMatching(/malformed JSON/)] }),
    );
    for (const input of ['[1,2]', '"text"', '42', 'null', null, 7, [valid]]) {
      expect(issuesOf(input)).toEqual([{ field: '(body)', problems: ['must be a JSON object'] }]);
    }
  });

  it('ignores extra fields', () => {
    const event = parseTaskEvent({ ...valid, extra: 'x', trace: { id: 1 } });
    expect(JSON.stringify(event)).toBe(JSON.stringify({ ...valid }));
    expect(Object.keys(event.toJSON())).not.toContain('extra');
  });

  it('accepts Python-style timestamps with microseconds and an offset', () => {
    const event = parseTaskEvent({ ...valid, ts: '2026-06-12T14:03:00.123456+00:00' });
    expect(event.ts.toISOString()).toBe('2026-06-12T14:03:00.123Z');
    expect(parseTaskEvent({ ...valid, ts: '2026-06-12T16:03:00.5+02:00' }).toJSON().ts).toBe(
      '2026-06-12T14:03:00.500Z',
    );
    expect(parseTaskEvent({ ...valid, ts: '2026-06-12T14:03:00Z' }).toJSON().ts).toBe(
      '2026-06-12T14:03:00.000Z',
    );
  });

  it('defaults a missing schema_version to 1', () => {
    const { schema_version: _omit, ...rest } = valid;
    expect(parseTaskEvent(rest).schema_version).toBe(1);
  });
});
