import { ConfigError } from '../errors/kit.error.js';
import { describeValue } from '../tasks/task-json.util.js';
import { BUILTIN_TRIGGERS } from './builtin-triggers.js';
import { type TriggerEvaluator } from './trigger.types.js';

/**
 * The trigger evaluators a TaskManager knows, by trigger `type`. An instance, never global: each
 * server builds its own (usually {@link TriggerRegistry.withBuiltins} plus its own evaluators).
 */
export class TriggerRegistry {
  private readonly evaluators = new Map<string, TriggerEvaluator>();

  constructor(evaluators: Iterable<TriggerEvaluator> = []) {
    for (const evaluator of evaluators) this.register(evaluator);
  }

  /** A registry with the evaluators every server gets: `progress_above`, `eta_below`, `zone_entered`. */
  static withBuiltins(): TriggerRegistry {
    return new TriggerRegistry(BUILTIN_TRIGGERS);
  }

  /** Adds an evaluator, replacing any evaluator of the same type. */
  register(evaluator: TriggerEvaluator): this {
    assertEvaluator(evaluator);
    this.evaluators.delete(evaluator.type);
    this.evaluators.set(evaluator.type, evaluator);
    return this;
  }

  get(type: string): TriggerEvaluator | undefined {
    return this.evaluators.get(type);
  }

  has(type: string): boolean {
    return this.evaluators.has(type);
  }

  /** The registered trigger types, in registration order. */
  types(): string[] {
    return [...this.evaluators.keys()];
  }

  /** The registered evaluators, in registration order. */
  list(): TriggerEvaluator[] {
    return [...this.evaluators.values()];
  }
}

function assertEvaluator(value: unknown): asserts value is TriggerEvaluator {
  if (typeof value !== 'object' || value === null) {
    throw new ConfigError(
      'evaluator',
      `expected an object { type, evaluate(trigger, progress, task) }, got ${describeValue(value)}`,
    );
  }
  const { type, evaluate, validate, description } = value as Record<string, unknown>;
  if (typeof type !== 'string' || type.length === 0) {
    throw new ConfigError(
      'evaluator.type',
      `expected the non-empty trigger type it evaluates, such as "eta_below", got ${describeValue(type)}`,
    );
  }
  if (typeof evaluate !== 'function') {
    throw new ConfigError(
      'evaluator.evaluate',
      `the "${type}" evaluator needs an evaluate(trigger, progress, task) function, got ${describeValue(evaluate)}`,
    );
  }
  if (validate !== undefined && typeof validate !== 'function') {
    throw new ConfigError(
      'evaluator.validate',
      `the "${type}" evaluator's validate must be a function or absent, got ${describeValue(validate)}`,
    );
  }
  if (description !== undefined && typeof description !== 'string') {
    throw new ConfigError(
      'evaluator.description',
      `the "${type}" evaluator's description must be a string or absent, got ${describeValue(description)}`,
    );
  }
}
