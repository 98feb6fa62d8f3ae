import { isoTime } from '../../src/models/iso-time.js';

describe('isoTime', () => {
  it('formats as toISOString, for repeated and changing milliseconds', () => {
    const times = [0, 0, 1_764_600_000_123, 1_764_600_000_123, 1_764_600_000_124, -1, 0];
    for (const ms of times) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('follows a Date changed in place', () => {
    const date = new Date(5);
    expect(isoTime(date)).toBe('1970-01-01T00:00:00.005Z');
    date.setTime(6);
    expect(isoTime(date)).toBe('1970-01-01T00:00:00.006Z');
  });

  it('throws on an invalid date, as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
