import { plainToInstance } from 'class-transformer';
import { type ValidationError, validate } from 'class-validator';
import { isJsonObject } from '@robot-mcp-kit/core';
import { ToolArgumentsError } from '../errors/server.error.js';
import { type DtoClass } from '../metadata/decorator-args.types.js';
import { fastValidate } from './fast-dto.validator.js';
import { FORBIDDEN_KEYS } from './forbidden-keys.js';

const MAX_DEPTH = 32;

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
  const input = raw ?? {};
  if (!isJsonObject(input)) throw new ToolArgumentsError(tool, ['arguments must be a JSON object']);
  // Valid flat arguments need no key walk: the fast path takes only whitelisted, safe keys.
  const fast = dto ? fastValidate(dto, input) : undefined;
  if (fast) return fast;
  const unsafe = findUnsafeKey(input, '', 0);
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

function describe(errors: readonly ValidationError[], prefix: string): string[] {
  const problems: string[] = [];
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) problems.push(`${path}: ${message}`);
    if (error.children?.length) problems.push(...describe(error.children, path));
  }
  return problems;
}

function findUnsafeKey(value: unknown, path: string, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return `${path || 'arguments'}: nested deeper than ${MAX_DEPTH} levels`;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = findUnsafeKey(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const child = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) return `${child}: the key "${key}" is not allowed`;
    const found = findUnsafeKey((value as Record<string, unknown>)[key], child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
