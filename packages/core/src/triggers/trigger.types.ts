import { type JsonObject } from '../models/json.types.js';
import { type TaskInfo } from '../models/task-info.model.js';

/**
 * A trigger as the caller attaches it (spec §3.2): a plain dict with a `type` key; everything else
 * is type-specific. `repeat: true` lets it fire more than once per task.
 */
export type Trigger = JsonObject & { type: string; repeat?: boolean };

/**
 * The trigger port: evaluates one trigger type. The server framework calls these "trigger
 * plugins"; the shape is the same.
 */
export interface TriggerEvaluator {
  /** The trigger `type` it evaluates, e.g. `eta_below`. */
  readonly type: string;
  /** One line for people and LLMs, e.g. `fires when the progress eta_s < seconds`. */
  readonly description?: string;
  /**
   * Checks the trigger's type-specific fields when a task starts. Returns one problem per bad field,
   * each naming the field (`seconds: expected a number >= 0, got "soon"`); empty or undefined if valid.
   */
  validate?(trigger: Trigger): readonly string[] | undefined;
  /**
   * Called after each progress report of a task carrying this trigger. Returns the extra payload of
   * the `trigger_fired` event (the values that made it fire, e.g. `{ eta_s: 9.4 }`) to fire, or
   * `undefined` not to fire.
   */
  evaluate(trigger: Trigger, progress: JsonObject, task: TaskInfo): JsonObject | undefined;
}
