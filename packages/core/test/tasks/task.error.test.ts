import { RobotMcpKitError, TaskCancelledError, TaskError, TaskFailure } from '@robot-mcp-kit/core';
import { TaskArgumentError, TaskManagerClosedError } from '@robot-mcp-kit/core/host';

describe('TaskError', () => {
  it('defaults to recoverable with no suggestions', () => {
    const error = new TaskError('OBJECT_NOT_FOUND', 'No cup on the table.');
    expect(error).toBeInstanceOf(RobotMcpKitError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TaskError');
    expect(error.code).toBe('OBJECT_NOT_FOUND');
    expect(error.message).toBe('No cup on the table.');
    expect(error.recoverable).toBe(true);
    expect(error.suggestions).toEqual([]);
  });

  it('turns into a TaskFailure in wire order', () => {
    const suggestions = ['ask_reception'];
    const error = new TaskError('DOOR_CLOSED', 'Closed.', { recoverable: false, suggestions });
    suggestions.push('later');
    const failure = error.toFailure();
    expect(failure).toBeInstanceOf(TaskFailure);
    expect(JSON.stringify(failure)).toBe(
      '{"error_code":"DOOR_CLOSED","message":"Closed.","recoverable":false,"suggestions":["ask_reception"]}',
    );
    failure.suggestions.push('x');
    expect(error.toFailure().suggestions).toEqual(['ask_reception']);
  });

  it('names a bad argument', () => {
    expect(() => new TaskError('', 'm')).toThrow(/^errorCode: expected a non-empty machine code/);
    expect(() => new TaskError('E', 'm', { recoverable: 'no' as unknown as boolean })).toThrow(
      /^recoverable: /,
    );
    expect(() => new TaskError('E', 'm', { suggestions: [1] as unknown as string[] })).toThrow(
      TaskArgumentError,
    );
  });
});

describe('TaskCancelledError and TaskManagerClosedError', () => {
  it('have stable codes and clear messages', () => {
    expect(new TaskCancelledError('nav-123456').code).toBe('TASK_CANCELLED');
    expect(new TaskCancelledError('nav-123456').message).toBe('task nav-123456 was cancelled');
    expect(new TaskCancelledError().message).toBe('the task was cancelled');
    const closed = new TaskManagerClosedError('navigation');
    expect(closed.code).toBe('TASK_MANAGER_CLOSED');
    expect(closed.message).toContain('"navigation"');
    expect(new TaskArgumentError('payload', 'bad').message).toBe('payload: bad');
  });
});
