import {
  ConfigError,
  TriggerRegistry,
  etaBelowTrigger,
  progressAboveTrigger,
  zoneEnteredTrigger,
  type TriggerEvaluator,
} from '@robot-mcp-kit/core';

const noop = (): undefined => undefined;

describe('TriggerRegistry', () => {
  it('has the built-ins every server has', () => {
    const registry = TriggerRegistry.withBuiltins();
    expect(registry.types()).toEqual(['progress_above', 'eta_below', 'zone_entered']);
    expect(registry.get('progress_above')).toBe(progressAboveTrigger);
    expect(registry.get('eta_below')).toBe(etaBelowTrigger);
    expect(registry.has('battery_below')).toBe(false);
    expect(registry.get('battery_below')).toBeUndefined();
  });

  it('registers evaluators in order, chaining, and is per instance', () => {
    const registry = new TriggerRegistry([etaBelowTrigger]);
    expect(registry.register(zoneEnteredTrigger)).toBe(registry);
    expect(registry.types()).toEqual(['eta_below', 'zone_entered']);
    expect(registry.list()).toEqual([etaBelowTrigger, zoneEnteredTrigger]);
    expect(new TriggerRegistry().types()).toEqual([]);
    expect(new TriggerRegistry().has('zone_entered')).toBe(false);
  });

  it('replaces an evaluator of the same type', () => {
    const mine: TriggerEvaluator = { type: 'eta_below', evaluate: () => ({ mine: true }) };
    const registry = new TriggerRegistry([etaBelowTrigger, zoneEnteredTrigger]).register(mine);
    expect(registry.get('eta_below')).toBe(mine);
    expect(registry.list()).toHaveLength(2);
  });

  it.each([
    ['evaluator', null],
    ['evaluator.type', { evaluate: noop }],
    ['evaluator.type', { type: '', evaluate: noop }],
    ['evaluator.evaluate', { type: 'x' }],
    ['evaluator.validate', { type: 'x', evaluate: noop, validate: 'yes' }],
    ['evaluator.description', { type: 'x', evaluate: noop, description: 3 }],
  ])('rejects a malformed evaluator, naming %s', (variable, evaluator) => {
    let caught: unknown;
    try {
      new TriggerRegistry().register(evaluator as unknown as TriggerEvaluator);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
  });

  it('accepts explicitly undefined optional members', () => {
    const registry = new TriggerRegistry([
      { type: 'x', description: undefined, validate: undefined, evaluate: () => undefined },
    ]);
    expect(registry.has('x')).toBe(true);
  });
});
