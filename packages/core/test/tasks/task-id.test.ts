import { RobotMcpKitError } from '@robot-mcp-kit/core';
import { newEventId, newTaskId, randomHex6, taskIdPrefix } from '../../src/tasks/task-id.js';

describe('task ids', () => {
  it('prefixes with the first 4 characters of the server name', () => {
    expect(taskIdPrefix('navigation')).toBe('navi');
    expect(taskIdPrefix('ab')).toBe('ab');
    expect(taskIdPrefix('😀😀😀😀😀')).toBe('😀😀😀😀');
  });

  it('skips punctuation and spaces so short or punctuated names stay readable', () => {
    expect(taskIdPrefix('arm-m8')).toBe('armm');
    expect(taskIdPrefix('ur5')).toBe('ur5');
    expect(taskIdPrefix('my_robot')).toBe('myro');
    expect(taskIdPrefix('a.b c+d')).toBe('abcd');
    expect(taskIdPrefix('--')).toBe('task');
    expect(newTaskId(taskIdPrefix('arm-m8'), () => false)).toMatch(/^armm-[0-9a-f]{6}$/);
  });

  it('draws 6 lowercase hex digits', () => {
    for (let i = 0; i < 100; i += 1) expect(randomHex6()).toMatch(/^[0-9a-f]{6}$/);
    expect(newTaskId('nav', () => false)).toMatch(/^nav-[0-9a-f]{6}$/);
  });

  it('draws again while the id is taken', () => {
    const draws = ['aaaaaa', 'aaaaaa', 'bbbbbb'];
    const taken = new Set(['nav-aaaaaa']);
    const id = newTaskId(
      'nav',
      (candidate) => taken.has(candidate),
      () => draws.shift()!,
    );
    expect(id).toBe('nav-bbbbbb');
    expect(draws).toEqual([]);
  });

  it('gives up with a clear error when no free id can be found', () => {
    expect(() =>
      newTaskId(
        'nav',
        () => true,
        () => '000000',
      ),
    ).toThrow(RobotMcpKitError);
    expect(() =>
      newTaskId(
        'nav',
        () => true,
        () => '000000',
      ),
    ).toThrow(/lower maxFinishedRetained/);
  });

  it('makes 32-hex event ids', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newEventId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('makes version-4 UUID event ids, unique across refills of its random pool', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newEventId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });
});
