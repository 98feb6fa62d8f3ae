import {
  BUILTIN_TRIGGER_TYPES,
  isReservedToolName,
  isScaffoldToolName,
  isTriggerType,
  RESERVED_TOOL_NAMES,
  suggestSnakeCase,
  TOOL_NAME_MAX_LENGTH,
  TRIGGER_TYPE_MAX_LENGTH,
} from '@robot-mcp-kit/core/rules';
import { CliError } from './cli.error.js';

/**
 * A tool name the CLI can scaffold: lower snake_case, at most 128 characters (the MCP limit), not
 * reserved by the kit, and served under the same name as its method (rules in the core package).
 */
export function validateToolName(name: string): string {
  if (!isScaffoldToolName(name)) {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<name>',
      `"${name}" is not a valid tool name; use lower snake_case starting with a letter, each part ` +
        `after "_" starting with a letter, at most ${TOOL_NAME_MAX_LENGTH} characters, ` +
        `e.g. "${suggestSnakeCase(name) || 'scan_room'}"`,
    );
  }
  if (name === 'constructor') {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<name>',
      '"constructor" cannot be a method name; choose another name',
    );
  }
  if (isReservedToolName(name)) {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<name>',
      `"${name}" is reserved by the kit (${RESERVED_TOOL_NAMES.join(', ')}); choose another name, e.g. "my_${name}"`,
    );
  }
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
