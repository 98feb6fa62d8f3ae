import { type ValidationError, validateSync } from 'class-validator';
import { ContractValidationError, type FieldIssue } from '../errors/kit.error.js';
import { isJsonObject, type JsonObject } from './json.types.js';
import { TaskEvent } from './task-event.model.js';
import { TaskFailure } from './task-failure.model.js';
import { TaskInfo } from './task-info.model.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})$/;

/** JSON text, its UTF-8 bytes, or an already-parsed value. */
export type WireInput = string | Uint8Array | unknown;

/**
 * Parses and validates a TaskEvent from JSON (text, bytes or a parsed value).
 * Unknown extra fields are ignored (forward compatibility, as pydantic does).
 * @throws ContractValidationError listing every bad field.
 */
export function parseTaskEvent(input: WireInput): TaskEvent {
  const raw = toObject(input, 'TaskEvent');
  const event = new TaskEvent();
  assign(event, raw, ['schema_version', 'event_id', 'task_id', 'server', 'tool', 'type', 'seq', 'payload']);
  const dateIssues = assignDate(event, raw, 'ts');
  return validated(event, 'TaskEvent', dateIssues);
}

/** Parses and validates a TaskInfo. @throws ContractValidationError listing every bad field. */
export function parseTaskInfo(input: WireInput): TaskInfo {
  const raw = toObject(input, 'TaskInfo');
  const info = new TaskInfo();
  assign(info, raw, [
    'task_id',
    'server',
    'tool',
    'state',
    'triggers',
    'est_duration_s',
    'progress',
    'result',
  ]);
  const dateIssues = [...assignDate(info, raw, 'created_at'), ...assignDate(info, raw, 'updated_at')];
  if (raw.failure !== undefined && raw.failure !== null) {
    if (isJsonObject(raw.failure)) info.failure = buildFailure(raw.failure);
    else dateIssues.push({ field: 'failure', problems: ['failure must be an object or null'] });
  }
  return validated(info, 'TaskInfo', dateIssues);
}

/** Parses and validates a TaskFailure. @throws ContractValidationError listing every bad field. */
export function parseTaskFailure(input: WireInput): TaskFailure {
  return validated(buildFailure(toObject(input, 'TaskFailure')), 'TaskFailure', []);
}

function buildFailure(raw: JsonObject): TaskFailure {
  const failure = new TaskFailure();
  assign(failure, raw, ['error_code', 'message', 'recoverable', 'suggestions']);
  return failure;
}

function toObject(input: WireInput, what: string): JsonObject {
  let value: unknown = input;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    const text = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ContractValidationError(what, [
        { field: '(body)', problems: [`malformed JSON: ${(err as Error).message}`] },
      ]);
    }
  }
  if (!isJsonObject(value)) {
    throw new ContractValidationError(what, [{ field: '(body)', problems: ['must be a JSON object'] }]);
  }
  return value;
}

function assign<T extends object>(target: T, raw: JsonObject, keys: readonly (keyof T & string)[]): void {
  for (const key of keys) {
    if (Object.prototype.hasOwnProperty.call(raw, key) && raw[key] !== undefined) {
      (target as Record<string, unknown>)[key] = raw[key];
    }
  }
}

function assignDate<T extends object>(target: T, raw: JsonObject, key: keyof T & string): FieldIssue[] {
  const value = raw[key];
  if (typeof value !== 'string' || !ISO_8601.test(value)) {
    return [
      {
        field: key,
        problems: [`${key} must be an ISO 8601 date-time string such as 2026-06-12T14:03:00.123Z`],
      },
    ];
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return [{ field: key, problems: [`${key} is not a valid date-time`] }];
  (target as Record<string, unknown>)[key] = date;
  return [];
}

function validated<T extends object>(instance: T, what: string, extra: FieldIssue[]): T {
  const errors = validateSync(instance, { forbidUnknownValues: true });
  const issues = [...extra, ...flatten(errors, '')].filter(
    (issue, index, all) => all.findIndex((other) => other.field === issue.field) === index,
  );
  if (issues.length > 0) throw new ContractValidationError(what, issues);
  return instance;
}

function flatten(errors: readonly ValidationError[], prefix: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) issues.push({ field, problems: Object.values(error.constraints) });
    if (error.children?.length) issues.push(...flatten(error.children, field));
  }
  return issues;
}
