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

  it('gives flat objects the same frozen JSON form as the round trip, without it', () => {
    const withGetter = Object.defineProperty({ a: 1 }, 'b', { get: () => 'got', enumerable: true });
    const protoKey = JSON.parse('{"__proto__": 1, "x": 2}') as Record<string, unknown>;
    const samples: Record<string, unknown>[] = [
      { arrived: true },
      { a: 'text', b: 1.5, c: -0, d: Number.NaN, e: Infinity, f: null, g: undefined, h: false },
      { lone: '\ud800', quote: '"\\\n', [Symbol('s')]: 1 },
      { big: 'x'.repeat(200_000) },
      { nested: { a: [1, 2] }, after: 1 },
      withGetter,
      protoKey,
      Object.assign(Object.create(null) as object, { z: 1, a: 2 }),
      {},
    ];
    for (const sample of samples) {
      const check = toFrozenJsonObject(sample);
      if (!check.ok) throw new Error(check.problem);
      expect(JSON.stringify(check.value)).toBe(JSON.stringify(sample));
      expect(check.value).toStrictEqual(JSON.parse(JSON.stringify(sample)));
      expect(Object.isFrozen(check.value)).toBe(true);
      expect(check.value).not.toBe(sample);
    }
    const copy = toFrozenJsonObject(protoKey);
    expect(copy.ok && Object.getPrototypeOf(copy.value)).toBe(Object.prototype);
  });

  it('still refuses a flat object whose JSON is over the byte limit', () => {
    const check = toFrozenJsonObject({ a: '\u0001'.repeat(200_000) });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problem).toMatch(
      /^got an object whose JSON is 1200008 bytes, over the 1000000-byte limit/,
    );
  });
});
