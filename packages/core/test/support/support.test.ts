import { ManualClock } from '@robot-mcp-kit/core/testing';
import * as support from '@robot-mcp-kit/core/support';
import {
  Backoff,
  JSON_LIMITS,
  jsonLimitProblem,
  scaffoldToolNameProblem,
  waitAtMost,
} from '@robot-mcp-kit/core/support';

describe('@robot-mcp-kit/core/support', () => {
  it('exports exactly the shared helpers (a new name is a deliberate change made here)', () => {
    const names = ['Backoff', 'JSON_LIMITS', 'jsonLimitProblem', 'scaffoldToolNameProblem', 'waitAtMost'];
    expect(Object.keys(support).sort()).toEqual(names);
  });

  it('Backoff doubles from its first pause up to its longest, and starts over on reset', () => {
    const backoff = new Backoff(250, 1500);
    expect(backoff.currentMs).toBe(250);
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([250, 500, 1000, 1500]);
    expect(backoff.currentMs).toBe(1500);
    backoff.reset();
    expect(backoff.next()).toBe(250);
  });

  it('waitAtMost answers true when the promise settles first (even rejected), false at the deadline', async () => {
    const clock = new ManualClock(0);
    await expect(waitAtMost(Promise.resolve(), clock, 1000)).resolves.toBe(true);
    await expect(waitAtMost(Promise.reject(new Error('x')), clock, 1000)).resolves.toBe(true);
    const late = waitAtMost(new Promise(() => undefined), clock, 1000);
    await clock.advance(1000);
    await expect(late).resolves.toBe(false);
  });

  it('jsonLimitProblem holds each layer to its own limits and names the path', () => {
    const nest = (depth: number): unknown => (depth === 0 ? 1 : { a: nest(depth - 1) });
    expect(jsonLimitProblem('arguments', nest(JSON_LIMITS.arguments.maxDepth), '')).toBeUndefined();
    expect(jsonLimitProblem('arguments', nest(JSON_LIMITS.arguments.maxDepth + 1), '')).toMatch(
      `nested deeper than ${JSON_LIMITS.arguments.maxDepth} levels`,
    );
    expect(jsonLimitProblem('params', nest(JSON_LIMITS.arguments.maxDepth + 1), 'params')).toBeUndefined();
    expect(jsonLimitProblem('trigger', nest(JSON_LIMITS.trigger.maxDepth + 1), 'triggers[0]')).toMatch(
      /^triggers\[0\]\.a/,
    );
    expect(jsonLimitProblem('params', JSON.parse('{"__proto__": {}}'), 'params')).toMatch('__proto__');
  });

  it('scaffoldToolNameProblem refuses what cannot be scaffolded, with the fix', () => {
    expect(scaffoldToolNameProblem('scan_room')).toBeUndefined();
    expect(scaffoldToolNameProblem('scan_2d')).toMatch('e.g. "scan2d"');
    expect(scaffoldToolNameProblem('constructor')).toBe(
      '"constructor" cannot be a method name; choose another name',
    );
    expect(scaffoldToolNameProblem('get_task')).toMatch('"get_task" is reserved by the kit');
    expect(scaffoldToolNameProblem('scan room', ' scan room ')).toMatch(
      /^" scan room " is not a valid tool name/,
    );
  });
});
