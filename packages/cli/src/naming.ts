import {
  BUILTIN_TRIGGER_TYPES,
  isTriggerType,
  suggestSnakeCase,
  TRIGGER_TYPE_MAX_LENGTH,
} from '@robot-mcp-kit/core/rules';
import { scaffoldToolNameProblem } from '@robot-mcp-kit/core/support';
import { CliError } from './cli.error.js';

/**
 * A tool name the CLI can scaffold: lower snake_case, at most 128 characters (the MCP limit), not
 * reserved by the kit, and served under the same name as its method (rules in the core package).
 */
export function validateToolName(name: string): string {
  const problem = scaffoldToolNameProblem(name);
  if (problem) throw new CliError('CLI_INVALID_NAME', '<name>', problem);
  return name;
}

/** A trigger type: lower snake_case, at most 64 characters, not a built-in type. */
export function validateTriggerType(type: string): string {
  if (!isTriggerType(type)) {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<type>',
      `"${type}" is not a valid trigger type; use lower snake_case starting with a letter, at most ` +
        `${TRIGGER_TYPE_MAX_LENGTH} characters, e.g. "${suggestSnakeCase(type, TRIGGER_TYPE_MAX_LENGTH) || 'battery_below'}"`,
    );
  }
  if (BUILTIN_TRIGGER_TYPES.includes(type)) {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<type>',
      `"${type}" is a built-in trigger type (${BUILTIN_TRIGGER_TYPES.join(', ')}); every server already ` +
        'has it, so choose another type',
    );
  }
  return type;
}
