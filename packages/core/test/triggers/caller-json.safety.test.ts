import { describe, expect, it } from '@jest/globals';
import { TaskManager, TriggerRegistry, TriggerValidationError } from '@robot-mcp-kit/core';
import { jsonPrefix } from '../../src/tasks/task-json.util.js';
import { validateTriggers } from '../../src/triggers/trigger.validation.js';
import { jsonSafetyProblem } from '@robot-mcp-kit/core/rules';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { RecordingSink, finished } from '../tasks/task-test.helpers.js';

function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i += 1) value = { n: value };
  return value;
}

const LIMITS = { maxDepth: 8, maxBytes: 10_000 };

describe('jsonSafetyProblem (the one check for caller JSON)', () => {
  it('finds over-deep nesting without recursion, even 100,000 levels deep', () => {
    expect(jsonSafetyProblem(nested(100_000), LIMITS, 'arguments')).toMatch(
      /^arguments\.n\.n\.n\.n\.n\.n\.n\.n: nested deeper than 8 levels$/,
    );
    expect(jsonSafetyProblem(nested(8), LIMITS, 'arguments')).toBeUndefined();
  });

  it('refuses __proto__, constructor and prototype keys at any depth, own keys included', () => {
    expect(jsonSafetyProblem(JSON.parse('{"__proto__": {"x": 1}}'), LIMITS, 'arguments')).toBe(
      'arguments.__proto__: the key "__proto__" is not allowed (it could pollute prototypes)',
    );
    expect(jsonSafetyProblem({ a: [{ b: { constructor: 1 } }] }, LIMITS, 'p')).toMatch(
      /^p\.a\[0\]\.b\.constructor: /,
    );
    expect(jsonSafetyProblem({ prototype: 1 }, LIMITS, '')).toMatch(/^prototype: /);
  });

  it('bounds the size and keeps paths short', () => {
    expect(jsonSafetyProblem({ s: 'x'.repeat(20_000) }, LIMITS, 'arguments')).toBe(
      'arguments: more than 10000 bytes of JSON',
    );
    const deepKeys = nested(50);
    const problem = jsonSafetyProblem(deepKeys, { maxDepth: 40, maxBytes: 10_000 }, 'params') ?? '';
    expect(problem.length).toBeLessThan(200);
  });

  it('names the value at fault with the same path however deep or long', () => {
    const long = 'k'.repeat(60);
    expect(jsonSafetyProblem({ a: [1, { [long]: [{ prototype: 1 }] }] }, LIMITS, 'p')).toBe(
      `p.a[1].${'k'.repeat(40)}... (60 characters)[0].prototype: the key "prototype" is not allowed (it could pollute prototypes)`,
    );
    const root = `arguments.${'y'.repeat(108)}`; // 118 characters: cut after `.a`
    expect(jsonSafetyProblem({ a: { b: { c: 1, constructor: 2 } } }, LIMITS, root)).toBe(
      `${root}.a…: the key "constructor" is not allowed (it could pollute prototypes)`,
    );
    expect(jsonSafetyProblem([[], [[[{ n: [[[[{}]]]] }]]]], LIMITS, '')).toBe(
      '[1][0][0][0].n[0][0][0]: nested deeper than 8 levels',
    );
  });

  it('walks a depth limit over 1000 without recursion, with the same answers', () => {
    expect(jsonSafetyProblem(nested(100_000), { maxDepth: 5000, maxBytes: 1e9 }, 'arguments')).toMatch(
      /^arguments\.n\.n.*…: nested deeper than 5000 levels$/,
    );
    const value = { a: [1, 'two', { b: [{ c: null }, { prototype: 3 }] }] };
    const deepLimit = { maxDepth: 1001, maxBytes: 10_000 };
    expect(jsonSafetyProblem(value, deepLimit, 'p')).toBe(jsonSafetyProblem(value, LIMITS, 'p'));
    expect(jsonSafetyProblem(value, deepLimit, 'p')).toMatch(/^p\.a\[2\]\.b\[1\]\.prototype: /);
    expect(jsonSafetyProblem(value, { maxDepth: 1001, maxBytes: 20 }, 'p')).toBe(
      'p: more than 20 bytes of JSON',
    );
    expect(jsonSafetyProblem(value, { maxDepth: 8, maxBytes: 20 }, 'p')).toBe(
      'p: more than 20 bytes of JSON',
    );
  });

  it('jsonPrefix cuts what it logs and never throws', () => {
    expect(jsonPrefix({ a: 'x'.repeat(10_000) }).length).toBeLessThan(260);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonPrefix(cyclic)).toMatch(/^\(not serializable/);
  });
});

describe('triggers through the same check', () => {
  it('refuses a small but 2,500-level deep trigger with the field, before anything starts', () => {
    const registry = new TriggerRegistry();
    let deep: unknown = [];
    for (let i = 0; i < 2500; i += 1) deep = [deep];
    const trigger = { type: 'zone_entered', zone: 'kitchen', deep };
    expect(JSON.stringify(trigger).length).toBeLessThan(16_384);
    let error: unknown;
    try {
      validateTriggers([trigger], registry);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TriggerValidationError);
    expect((error as Error).message).toMatch(/triggers\[0\]\.deep\[0\]\[0\].*nested deeper than 16 levels/);
    expect(() =>
      validateTriggers([JSON.parse('{"type":"eta_below","__proto__":{"x":1}}')], registry),
    ).toThrow(/triggers\[0\]\.__proto__: the key "__proto__" is not allowed/);
  });

  it('an unknown trigger type is warned about with a short prefix of the trigger only', async () => {
    const sink = new RecordingSink();
    const logger = new MemoryLogger();
    const manager = new TaskManager({ serverName: 'navigation', poster: sink, logger });
    const trigger = { type: 'door_opened', blob: 'y'.repeat(15_000) };
    const info = manager.start(
      'drive',
      async (ctx) => {
        await ctx.progress({ percent: 10 });
        return {};
      },
      { triggers: [trigger] },
    );
    await finished(manager, info.task_id);
    const warning = logger.at('warn', 'unknown trigger type')[0];
    expect(warning).toBeDefined();
    expect(JSON.stringify(warning).length).toBeLessThan(1_000);
    expect(String(warning?.meta.trigger)).toMatch(/^\{"type":"door_opened","blob":"yyy/);
  });
});
