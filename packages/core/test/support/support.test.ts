import { ManualClock } from '@robot-mcp-kit/core/testing';
import {
  Backoff,
  JSON_LIMITS,
  jsonLimitProblem,
  pause,
  pollUntil,
  scaffoldToolNameProblem,
  waitAtMost,
  withTimeout,
} from '@robot-mcp-kit/core/support';

describe('@robot-mcp-kit/core/support', () => {
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

  it('pause ends on the clock, or at once when its signal aborts', async () => {
    const clock = new ManualClock(0);
    let ended = false;
    const paused = pause(clock, 500).then(() => (ended = true));
    await clock.advance(499);
    expect(ended).toBe(false);
    await clock.advance(1);
    await paused;
    expect(ended).toBe(true);
    const abort = new AbortController();
    const aborted = pause(clock, 60_000, abort.signal);
    abort.abort();
    await expect(aborted).resolves.toBeUndefined();
    await expect(pause(clock, 60_000, abort.signal)).resolves.toBeUndefined(); // aborted already
  });

  it('withTimeout settles as the promise does, or rejects with the message at the deadline', async () => {
    const clock = new ManualClock(0);
    await expect(withTimeout(Promise.resolve(7), clock, 100, 'late')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject('no'), clock, 100, 'late')).rejects.toThrow('no');
    const late = expect(
      withTimeout(new Promise(() => undefined), clock, 100, 'no PUBACK within 100 ms'),
    ).rejects.toThrow('no PUBACK within 100 ms');
    await clock.advance(100);
    await late;
  });

  it('pollUntil asks until an answer, pausing on the clock, and gives up at the deadline', async () => {
    const clock = new ManualClock(0);
    const asked: number[] = [];
    const third = pollUntil(
      () => {
        asked.push(clock.now());
        return asked.length === 3 ? 'done' : undefined;
      },
      { clock, withinMs: 10_000, pauses: new Backoff(100, 150) },
    );
    await clock.advance(100);
    await clock.advance(150);
    await expect(third).resolves.toBe('done');
    expect(asked).toEqual([0, 100, 250]); // the first at once, then the backoff's pauses

    const never: number[] = [];
    const givenUp = pollUntil(
      () => {
        never.push(clock.now());
        return undefined;
      },
      { clock, withinMs: 120, pauses: 50, pauseFirst: true },
    );
    for (let i = 0; i < 3; i++) await clock.advance(50);
    await expect(givenUp).resolves.toBeUndefined();
    expect(never.map((at) => at - 250)).toEqual([50, 100, 120]); // the last pause cut to the deadline
    await expect(
      pollUntil(
        () => {
          throw new Error('store down');
        },
        { clock, withinMs: 100, pauses: 10 },
      ),
    ).rejects.toThrow('store down');
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
