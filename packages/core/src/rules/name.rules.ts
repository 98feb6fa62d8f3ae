import { toCamelCase, toSnakeCase } from './naming.rules.js';

/**
 * Tool names (MCP 2025-11-25, "Tool names"): 1 to 128 characters of `A-Z a-z 0-9 _ - .`,
 * case-sensitive. The official SDK checks the same pattern.
 */
export const TOOL_NAME_MAX_LENGTH = 128;
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Tool names the kit registers itself, by the feature that registers them. */
export const KIT_TOOL_NAMES = Object.freeze({
  reconciliation: Object.freeze(['get_task', 'cancel_task', 'list_tasks'] as const),
  eventFeed: Object.freeze(['get_events', 'wait_for_event'] as const),
});

/** Every tool name the kit may register; a decorated or scaffolded tool may not take one. */
export const RESERVED_TOOL_NAMES: readonly string[] = Object.freeze([
  ...KIT_TOOL_NAMES.reconciliation,
  ...KIT_TOOL_NAMES.eventFeed,
]);

/** Trigger types: lower snake_case starting with a letter, 1 to 64 characters (`eta_below`). */
export const TRIGGER_TYPE_MAX_LENGTH = 64;
export const TRIGGER_TYPE_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** A name MCP clients accept as a tool name. */
export function isMcpToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name);
}

export function isReservedToolName(name: string): boolean {
  return RESERVED_TOOL_NAMES.includes(name);
}

/** A valid trigger type (see `TRIGGER_TYPE_PATTERN`). */
export function isTriggerType(type: unknown): type is string {
  return (
    typeof type === 'string' && type.length <= TRIGGER_TYPE_MAX_LENGTH && TRIGGER_TYPE_PATTERN.test(type)
  );
}

/**
 * A tool name the CLI and the generator can write as a method: an MCP tool name in lower
 * snake_case whose method name (`toCamelCase`) the server maps back to the same tool name
 * (`toSnakeCase`). `scan_2d` is not one: its method `scan2d` would be served as `scan2d`.
 */
export function isScaffoldToolName(name: string): boolean {
  return isMcpToolName(name) && SNAKE_CASE.test(name) && toSnakeCase(toCamelCase(name)) === name;
}
