import { TaskFailure, parseTaskFailure } from '@robot-mcp-kit/core';

describe('TaskFailure wire form', () => {
  it('defaults recoverable to true and suggestions to []', () => {
    const failure = TaskFailure.create({ error_code: 'TIMEOUT', message: 'Took too long.' });
    expect(JSON.stringify(failure)).toBe(
      '{"error_code":"TIMEOUT","message":"Took too long.","recoverable":true,"suggestions":[]}',
    );
  });

  it('copies suggestions and round-trips', () => {
    const suggestions = ['ask_reception', 'retry_after_s:300'];
    const failure = TaskFailure.create({
      error_code: 'DOOR_CLOSED',
      message: 'm',
      recoverable: false,
      suggestions,
    });
    suggestions.push('mutated');
    const json = JSON.stringify(failure);
    expect(json).toBe(
      '{"error_code":"DOOR_CLOSED","message":"m","recoverable":false,"suggestions":["ask_reception","retry_after_s:300"]}',
    );
    expect(JSON.stringify(parseTaskFailure(json))).toBe(json);
  });

  it('fills defaults when parsing and rejects bad fields', () => {
    expect(parseTaskFailure('{"error_code":"X","message":""}').toJSON()).toEqual({
      error_code: 'X',
      message: '',
      recoverable: true,
      suggestions: [],
    });
    expect.assertions(2);
    try {
      parseTaskFailure({ error_code: '', message: 3, suggestions: [1] });
    } catch (err) {
      expect((err as { issues: { field: string }[] }).issues.map((i) => i.field).sort()).toEqual([
        'error_code',
        'message',
        'suggestions',
      ]);
    }
  });
});
