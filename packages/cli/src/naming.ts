import { CliError } from './cli.error.js';

/** Tool names the kit registers itself (the server package's RESERVED_TOOL_NAMES). */
export const RESERVED_TOOL_NAMES: readonly string[] = [
  'get_task',
  'cancel_task',
  'list_tasks',
  'get_events',
  'wait_for_event',
];

/** Trigger types every server has (the server package's BUILTIN_TRIGGER_PLUGINS). */
export const BUILTIN_TRIGGER_TYPES: readonly string[] = ['progress_above', 'eta_below', 'zone_entered'];

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** A tool name: lower snake_case, at most 64 characters, not reserved by the kit. */
export function validateToolName(name: string): string {
  if (name.length > 64 || !SNAKE.test(name)) {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<name>',
      `"${name}" is not a valid tool name; use lower snake_case starting with a letter, at most 64 ` +
        `characters, e.g. "${toSnakeCase(name) || 'scan_room'}"`,
    );
  }
  if (name === 'constructor') {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<name>',
      '"constructor" cannot be a method name; choose another name',
    );
  }
  if (RESERVED_TOOL_NAMES.includes(name)) {
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
  if (type.length > 64 || !SNAKE.test(type)) {
    throw new CliError(
      'CLI_INVALID_NAME',
      '<type>',
      `"${type}" is not a valid trigger type; use lower snake_case starting with a letter, at most 64 ` +
        `characters, e.g. "${toSnakeCase(type) || 'battery_below'}"`,
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

/** `scanRoom`, `scan-room`, `Scan Room` → `scan_room`. */
export function toSnakeCase(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^[_0-9]+|_+$/g, '')
    .toLowerCase();
}

/** `navigateTo` → `navigate_to`, as the server derives tool names from method names. */
export function methodToToolName(method: string): string {
  return method
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** `scan_room` → `ScanRoom`. */
export function toPascalCase(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** `scan_room` → `scanRoom`. */
export function toCamelCase(value: string): string {
  const pascal = toPascalCase(value);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/** `scan_room` → `scan-room` (file names). */
export function toKebabCase(value: string): string {
  return value.replace(/_/g, '-');
}
