import { plainToInstance } from 'class-transformer';
import { type ValidationError, validate } from 'class-validator';
import { isJsonObject } from '@robot-mcp-kit/core';
import { jsonSafetyProblem } from '@robot-mcp-kit/core/rules';
import { ToolArgumentsError } from '../errors/server.error.js';
import { type DtoClass } from '../metadata/decorator-args.types.js';

/** Deepest nesting in tool arguments. */
export const MAX_ARGUMENT_DEPTH = 32;
/** Largest tool arguments, in (estimated) bytes of JSON. */
export const MAX_ARGUMENT_BYTES = 1_000_000;

/**
 * Transforms and validates the raw arguments of a tool call into an instance of its DTO, with
 * class-transformer's `plainToInstance` and class-validator's `validate` (the author's copies: both
 * are peers). Unknown properties, prototype-polluting keys and over-deep nesting are rejected.
 * @throws ToolArgumentsError naming each field and constraint.
 */
export async function validateArguments(
  tool: string,
  dto: DtoClass | undefined,
  raw: unknown,
): Promise<object> {
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
