import { plainToInstance, type ValidationError, validate } from '@robot-mcp-kit/core/dto';
import { isJsonObject, jsonSafetyProblem } from '@robot-mcp-kit/core';
import { ToolArgumentsError } from '../errors/server.error.js';
import { type DtoClass } from '../metadata/decorator-args.types.js';
import { fastValidate } from './fast-dto.validator.js';

/** Deepest nesting in tool arguments. */
export const MAX_ARGUMENT_DEPTH = 32;
/** Largest tool arguments, in (estimated) bytes of JSON. */
export const MAX_ARGUMENT_BYTES = 1_000_000;

/**
 * The DTO instance of arguments the fast path covers and finds valid, synchronously (a call that
 * takes it answers without the promise hops of {@link validateArguments}); undefined otherwise —
 * then {@link slowArguments} decides and reports.
 */
export function fastArguments(dto: DtoClass | undefined, raw: unknown): object | undefined {
  const input = raw ?? {};
  return dto && isJsonObject(input) ? fastValidate(dto, input) : undefined;
}

/**
 * Transforms and validates the raw arguments of a tool call into an instance of its DTO.
 * Unknown properties, prototype-polluting keys and over-deep nesting are rejected.
 * @throws ToolArgumentsError naming each field and constraint.
 */
export async function validateArguments(
  tool: string,
  dto: DtoClass | undefined,
  raw: unknown,
): Promise<object> {
  // Valid flat arguments need no key walk: the fast path takes only whitelisted, safe keys.
  return fastArguments(dto, raw) ?? slowArguments(tool, dto, raw);
}

/**
 * {@link validateArguments} without the fast path: for a caller that tried {@link fastArguments}
 * already (it decides, and reports every problem, for what the fast path did not take).
 */
export async function slowArguments(tool: string, dto: DtoClass | undefined, raw: unknown): Promise<object> {
  const input = raw ?? {};
  if (!isJsonObject(input)) throw new ToolArgumentsError(tool, ['arguments must be a JSON object']);
  const unsafe = jsonSafetyProblem(input, { maxDepth: MAX_ARGUMENT_DEPTH, maxBytes: MAX_ARGUMENT_BYTES }, '');
  if (unsafe) throw new ToolArgumentsError(tool, [unsafe]);
  if (!dto) {
    const extra = Object.keys(input);
    if (extra.length > 0)
      throw new ToolArgumentsError(
        tool,
        extra.map((k) => `property ${k} should not exist (this tool takes no arguments)`),
      );
    return {};
  }
  const instance = plainToInstance(dto, input) as object;
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) throw new ToolArgumentsError(tool, describe(errors, ''));
  return instance;
}

/** One "path: message" line per failed constraint, nested properties as `a.b`. */
export function describe(errors: readonly ValidationError[], prefix: string): string[] {
  const problems: string[] = [];
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) problems.push(`${path}: ${message}`);
    if (error.children?.length) problems.push(...describe(error.children, path));
  }
  return problems;
}
