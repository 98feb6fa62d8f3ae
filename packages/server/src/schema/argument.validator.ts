import { plainToInstance } from 'class-transformer';
import { type ValidationError, validate } from 'class-validator';
import { isJsonObject } from '@robot-mcp-kit/core';
import { jsonLimitProblem } from '@robot-mcp-kit/core/support';
import { ToolArgumentsError } from '../errors/server.error.js';
import { type DtoClass } from '../metadata/decorator-args.types.js';

/**
 * Transforms and validates the raw arguments of a tool call into an instance of its DTO, with
 * class-transformer's `plainToInstance` and class-validator's `validate` (the author's copies: both
 * are peers). Unknown properties, prototype-polluting keys and over-deep nesting are rejected
 * (`JSON_LIMITS.arguments` of `@robot-mcp-kit/core/support`).
 * @throws ToolArgumentsError naming each field and constraint.
 */
export async function validateArguments(
  tool: string,
  dto: DtoClass | undefined,
  raw: unknown,
): Promise<object> {
  const input = raw ?? {};
  if (!isJsonObject(input)) throw new ToolArgumentsError(tool, ['arguments must be a JSON object']);
  const unsafe = jsonLimitProblem('arguments', input, '');
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
  const { instance, problems } = await validateStrictly(dto, input);
  if (problems.length > 0) throw new ToolArgumentsError(tool, problems);
  return instance;
}

/**
 * `plain` transformed into an instance of `dto`, and what class-validator finds wrong with it
 * (one line per failed constraint, see {@link describe}), strictly: a property the DTO does not
 * declare is a problem. Tool arguments and tool outputs are both held to this.
 */
export async function validateStrictly(
  dto: DtoClass,
  plain: object,
): Promise<{ instance: object; problems: string[] }> {
  const instance = plainToInstance(dto, plain) as object;
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  return { instance, problems: describe(errors, '') };
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
