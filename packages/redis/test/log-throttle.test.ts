import { describe, expect, it } from '@jest/globals';
import { LogThrottle, WARN_EVERY_MS } from '../src/log-throttle.js';

describe('LogThrottle', () => {
  it('lets one line of a kind through per interval, each kind on its own clock', () => {
    const throttle = new LogThrottle(1000);
    expect(throttle.due('outage', 0)).toBe(true);
    expect(throttle.due('outage', 999)).toBe(false);
    expect(throttle.due('refusal', 999)).toBe(true);
    expect(throttle.due('outage', 1000)).toBe(true);
    expect(throttle.due('outage', 1500)).toBe(false);
  });

  it('defaults to one line per 10 s', () => {
    const throttle = new LogThrottle();
    expect(throttle.due('x', 5)).toBe(true);
    expect(throttle.due('x', 5 + WARN_EVERY_MS - 1)).toBe(false);
    expect(throttle.due('x', 5 + WARN_EVERY_MS)).toBe(true);
  });
});
