import { type JsonObject } from '../models/json.types.js';
import { describeValue } from '../tasks/task-json.util.js';
import { type Trigger, type TriggerEvaluator } from './trigger.types.js';

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * `{"type": "progress_above", "percent": 50}`: fires when the progress `percent` is >= `percent`
 * (spec §3.2). Extra payload: `{ percent }`.
 */
export const progressAboveTrigger: TriggerEvaluator = Object.freeze({
  type: 'progress_above',
  description: 'fires when the progress percent >= percent (0..100)',
  validate(trigger: Trigger): string[] {
    const { percent } = trigger;
    return isFiniteNumber(percent) && percent >= 0 && percent <= 100
      ? []
      : [`percent: expected a number between 0 and 100, got ${describeValue(percent)}`];
  },
  evaluate(trigger: Trigger, progress: JsonObject): JsonObject | undefined {
    const { percent } = progress;
    if (!isFiniteNumber(percent) || !isFiniteNumber(trigger.percent)) return undefined;
    return percent >= trigger.percent ? { percent } : undefined;
  },
});

/**
 * `{"type": "eta_below", "seconds": 10}`: fires when the progress `eta_s` is < `seconds`
 * (navigation). Extra payload: `{ eta_s }`.
 */
export const etaBelowTrigger: TriggerEvaluator = Object.freeze({
  type: 'eta_below',
  description: 'fires when the progress eta_s < seconds',
  validate(trigger: Trigger): string[] {
    const { seconds } = trigger;
    return isFiniteNumber(seconds) && seconds >= 0
      ? []
      : [`seconds: expected a number >= 0, got ${describeValue(seconds)}`];
  },
  evaluate(trigger: Trigger, progress: JsonObject): JsonObject | undefined {
    const { eta_s: eta } = progress;
    if (!isFiniteNumber(eta) || !isFiniteNumber(trigger.seconds)) return undefined;
    return eta < trigger.seconds ? { eta_s: eta } : undefined;
  },
});

/**
 * `{"type": "zone_entered", "zone": "kitchen"}`: fires when the progress `zone` equals `zone`
 * (navigation). Extra payload: `{ zone }`.
 */
export const zoneEnteredTrigger: TriggerEvaluator = Object.freeze({
  type: 'zone_entered',
  description: 'fires when the progress zone equals zone',
  validate(trigger: Trigger): string[] {
    const { zone } = trigger;
    return typeof zone === 'string' && zone.length > 0
      ? []
      : [`zone: expected a non-empty zone name such as "kitchen", got ${describeValue(zone)}`];
  },
  evaluate(trigger: Trigger, progress: JsonObject): JsonObject | undefined {
    const { zone } = progress;
    if (typeof zone !== 'string' || typeof trigger.zone !== 'string') return undefined;
    return zone === trigger.zone ? { zone } : undefined;
  },
});

/**
 * The trigger evaluators every server has (the server's default plugins, the CLI's list of types
 * it will not scaffold, `TriggerRegistry.withBuiltins`). The one list of them.
 */
export const BUILTIN_TRIGGERS: readonly TriggerEvaluator[] = Object.freeze([
  progressAboveTrigger,
  etaBelowTrigger,
  zoneEnteredTrigger,
]);

/** The types of {@link BUILTIN_TRIGGERS}. */
export const BUILTIN_TRIGGER_TYPES: readonly string[] = Object.freeze(BUILTIN_TRIGGERS.map((t) => t.type));
