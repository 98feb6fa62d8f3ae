import { type FieldIssue, TriggerValidationError } from '../errors/kit.error.js';
import { isJsonObject } from '../models/json.types.js';
import { describeValue, errorMessage } from '../tasks/task-json.util.js';
import { JSON_LIMITS, jsonLimitProblem } from '../support/json-limits.js';
import { type TriggerRegistry } from './trigger.registry.js';
import { type Trigger } from './trigger.types.js';

/** Most triggers one task may carry. */
export const MAX_TRIGGERS = 64;
/** Largest serialized trigger: each one is echoed in every `trigger_fired` event it causes. */
export const MAX_TRIGGER_BYTES = JSON_LIMITS.trigger.maxBytes;

const FIELD_PROBLEM = /^([A-Za-z_$][\w$]*(?:(?:\.[A-Za-z_$][\w$]*)|(?:\[\d+\]))*): (.+)$/s;

/**
 * Checks the triggers a caller attached to a task (spec §3.2): an array (`null`/`undefined` mean
 * none) of plain JSON objects, each with a non-empty string `type` and, if present, a boolean
 * `repeat`. Triggers of a type in `registry` are also checked by its evaluator's `validate`.
 * Unknown types pass: they are warned about and ignored when the task runs.
 *
 * @returns the triggers (the same objects, typed)
 * @throws TriggerValidationError listing every problem, with fields like `triggers[1].seconds`
 */
export function validateTriggers(raw: unknown, registry: TriggerRegistry): Trigger[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) {
    throw new TriggerValidationError([
      {
        field: 'triggers',
        problems: [
          `expected an array of trigger objects such as [{"type": "eta_below", "seconds": 10}], got ${describeValue(raw)}`,
        ],
      },
    ]);
  }
  if (raw.length > MAX_TRIGGERS) {
    throw new TriggerValidationError([
      { field: 'triggers', problems: [`at most ${MAX_TRIGGERS} triggers per task, got ${raw.length}`] },
    ]);
  }
  const issues: FieldIssue[] = [];
  // The shared safety check first, on every trigger: nothing below walks or copies a hostile one.
  raw.forEach((trigger: unknown, index) => {
    const problem = jsonLimitProblem('trigger', trigger, `triggers[${index}]`);
    if (problem) issues.push(fieldIssue(problem));
  });
  if (issues.length > 0) throw new TriggerValidationError(issues);
  raw.forEach((trigger: unknown, index) =>
    issues.push(...triggerIssues(trigger, `triggers[${index}]`, registry)),
  );
  if (issues.length > 0) throw new TriggerValidationError(issues);
  return [...(raw as Trigger[])];
}

function triggerIssues(trigger: unknown, at: string, registry: TriggerRegistry): FieldIssue[] {
  if (!isJsonObject(trigger)) {
    return [{ field: at, problems: [`expected an object with a "type" key, got ${describeValue(trigger)}`] }];
  }
  const { type, repeat } = trigger;
  if (typeof type !== 'string' || type.length === 0) {
    return [
      {
        field: `${at}.type`,
        problems: [`expected a non-empty trigger type such as "eta_below", got ${describeValue(type)}`],
      },
    ];
  }
  const issues: FieldIssue[] = [];
  if (repeat !== undefined && typeof repeat !== 'boolean') {
    issues.push({
      field: `${at}.repeat`,
      problems: [`expected true or false, got ${describeValue(repeat)}`],
    });
  }
  let text: string;
  try {
    text = JSON.stringify(trigger);
  } catch (error) {
    issues.push({ field: at, problems: [`must be JSON-serializable (${errorMessage(error)})`] });
    return issues;
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_TRIGGER_BYTES) {
    issues.push({
      field: at,
      problems: [
        `is ${bytes} bytes of JSON; at most ${MAX_TRIGGER_BYTES} (it is echoed in every trigger_fired event)`,
      ],
    });
    return issues;
  }
  const evaluator = registry.get(type);
  if (!evaluator?.validate) return issues;
  let problems: readonly string[] | undefined;
  try {
    problems = evaluator.validate(trigger as Trigger);
  } catch (error) {
    problems = [`the "${type}" validator failed: ${errorMessage(error)}`];
  }
  return [...issues, ...groupByField(problems ?? [], at)];
}

/** `triggers[0].deep: nested deeper ...` as the issue of field `triggers[0].deep`. */
function fieldIssue(problem: string): FieldIssue {
  const split = problem.lastIndexOf(': ');
  return { field: problem.slice(0, split), problems: [problem.slice(split + 2)] };
}

/** Turns `seconds: expected ...` problems into issues of `<at>.seconds`; others go on `<at>`. */
function groupByField(problems: readonly string[], at: string): FieldIssue[] {
  const byField = new Map<string, string[]>();
  for (const problem of problems) {
    const match = FIELD_PROBLEM.exec(String(problem));
    const field = match ? `${at}.${match[1]}` : at;
    const text = match ? match[2]! : String(problem);
    byField.set(field, [...(byField.get(field) ?? []), text]);
  }
  return [...byField].map(([field, list]) => ({ field, problems: list }));
}
