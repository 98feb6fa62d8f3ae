import {
  TriggerRegistry,
  TriggerValidationError,
  etaBelowTrigger,
  type FieldIssue,
  type TriggerEvaluator,
} from '@robot-mcp-kit/core';
import { validateTriggers } from '../../src/triggers/trigger.validation.js';
import { MAX_TRIGGERS, MAX_TRIGGER_BYTES } from '@robot-mcp-kit/core/rules';

const registry = TriggerRegistry.withBuiltins().register(etaBelowTrigger);

function issuesOf(raw: unknown, reg = registry): readonly FieldIssue[] {
  try {
    validateTriggers(raw, reg);
  } catch (error) {
    expect(error).toBeInstanceOf(TriggerValidationError);
    return (error as TriggerValidationError).issues;
  }
  throw new Error('expected a TriggerValidationError');
}

describe('validateTriggers', () => {
  it('treats null and undefined as no triggers', () => {
    expect(validateTriggers(null, registry)).toEqual([]);
    expect(validateTriggers(undefined, registry)).toEqual([]);
    expect(validateTriggers([], registry)).toEqual([]);
  });

  it('returns valid triggers, letting unknown types pass', () => {
    const raw = [
      { type: 'eta_below', seconds: 10, repeat: true },
      { type: 'door_opened', anything: [1] },
    ];
    const triggers = validateTriggers(raw, registry);
    expect(triggers).toEqual(raw);
    expect(triggers).not.toBe(raw);
  });

  it('requires an array', () => {
    expect(issuesOf({ type: 'eta_below' })).toEqual([
      {
        field: 'triggers',
        problems: [expect.stringMatching(/^expected an array of trigger objects .* got an object$/)],
      },
    ]);
  });

  it('reports every bad element by index and field', () => {
    const issues = issuesOf([
      'eta_below',
      { seconds: 5 },
      { type: '' },
      { type: 'eta_below', seconds: -2, repeat: 'yes' },
      { type: 'progress_above', percent: 50 },
      { type: 'x', n: 1n },
      [],
    ]);
    expect(issues).toEqual([
      {
        field: 'triggers[0]',
        problems: ['expected an object with a "type" key, got a string ("eta_below")'],
      },
      { field: 'triggers[1].type', problems: [expect.stringContaining('got undefined')] },
      { field: 'triggers[2].type', problems: [expect.stringContaining('got a string ("")')] },
      { field: 'triggers[3].repeat', problems: ['expected true or false, got a string ("yes")'] },
      { field: 'triggers[3].seconds', problems: ['expected a number >= 0, got a number (-2)'] },
      { field: 'triggers[5]', problems: [expect.stringMatching(/^must be JSON-serializable/)] },
      { field: 'triggers[6]', problems: ['expected an object with a "type" key, got an array'] },
    ]);
  });

  it('puts problems that name no field on the trigger, and contains a throwing validator', () => {
    const odd: TriggerEvaluator = {
      type: 'odd',
      evaluate: () => undefined,
      validate: (t) =>
        t.mode === 'throw'
          ? (() => {
              throw new Error('bug');
            })()
          : ['needs a door', 'door.id: missing', 'door.id: 0'],
    };
    const reg = new TriggerRegistry([odd]);
    expect(issuesOf([{ type: 'odd' }], reg)).toEqual([
      { field: 'triggers[0]', problems: ['needs a door'] },
      { field: 'triggers[0].door.id', problems: ['missing', '0'] },
    ]);
    expect(issuesOf([{ type: 'odd', mode: 'throw' }], reg)).toEqual([
      { field: 'triggers[0]', problems: ['the "odd" validator failed: bug'] },
    ]);
  });

  it('accepts a validator that returns undefined', () => {
    const lax: TriggerEvaluator = { type: 'lax', evaluate: () => undefined, validate: () => undefined };
    expect(validateTriggers([{ type: 'lax' }], new TriggerRegistry([lax]))).toHaveLength(1);
  });

  it('bounds the number and the size of triggers', () => {
    const many = Array.from({ length: MAX_TRIGGERS + 1 }, () => ({ type: 'eta_below', seconds: 1 }));
    expect(issuesOf(many)).toEqual([
      { field: 'triggers', problems: [`at most ${MAX_TRIGGERS} triggers per task, got ${MAX_TRIGGERS + 1}`] },
    ]);
    expect(validateTriggers(many.slice(0, MAX_TRIGGERS), registry)).toHaveLength(MAX_TRIGGERS);
    const huge = { type: 'zone_entered', zone: 'x'.repeat(MAX_TRIGGER_BYTES) };
    const issues = issuesOf([{ type: 'eta_below', seconds: 1 }, huge]);
    expect(issues.map((i) => i.field)).toEqual(['triggers[1]']);
    expect(issues[0]!.problems[0]).toMatch(new RegExp(`at most ${MAX_TRIGGER_BYTES}`));
  });

  it('formats a message naming the fields', () => {
    expect(() => validateTriggers([{ type: 'eta_below', seconds: 'soon' }], registry)).toThrow(
      'invalid trigger: triggers[0].seconds: expected a number >= 0, got a string ("soon")',
    );
  });
});
