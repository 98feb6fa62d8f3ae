import {
  canonicalJson,
  describeValue,
  errorMessage,
  toFrozenJsonObject,
} from '../../src/tasks/task-json.util.js';

describe('task JSON helpers', () => {
  it('describes values for error messages', () => {
    expect(describeValue(null)).toBe('null');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue([])).toBe('an array');
    expect(describeValue('x'.repeat(50))).toBe(`a string ("${'x'.repeat(40)}...")`);
    expect(describeValue(1.5)).toBe('a number (1.5)');
    expect(describeValue(false)).toBe('a boolean (false)');
    expect(describeValue(3n)).toBe('a bigint (3n)');
    expect(describeValue(Symbol('s'))).toBe('a symbol');
    expect(describeValue(() => 1)).toBe('a function');
    expect(describeValue({})).toBe('an object');
    expect(describeValue(new Date(0))).toBe('an instance of Date');
    expect(describeValue(Object.create({}) as object)).toBe('an instance of Object');
  });

  it('copies and freezes plain JSON objects', () => {
    const source = { a: [1, { b: 2 }], when: undefined };
    const check = toFrozenJsonObject(source);
    expect(check).toEqual({ ok: true, value: { a: [1, { b: 2 }] } });
    if (!check.ok) return;
    expect(Object.isFrozen((check.value.a as object[])[1])).toBe(true);
    expect(Object.isFrozen(source)).toBe(false);
    expect(toFrozenJsonObject({ toJSON: () => [1] })).toEqual({
      ok: false,
      problem: 'got an object whose JSON form is an array',
    });
  });

  it('compares JSON regardless of key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 3 } })).toBe(
      canonicalJson({ a: { c: 3, d: [2, { y: 2, z: 1 }] }, b: 1 }),
    );
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('turns anything thrown into a message', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage(new TypeError())).toBe('TypeError');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(Object.create(null))).toBe('an object');
  });
});
