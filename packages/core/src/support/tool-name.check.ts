import {
  isReservedToolName,
  isScaffoldToolName,
  RESERVED_TOOL_NAMES,
  TOOL_NAME_MAX_LENGTH,
} from '../rules/name.rules.js';
import { suggestSnakeCase } from '../rules/naming.rules.js';

/**
 * Why `name` cannot be scaffolded as a tool method (CLI `add tool`, generator `--tool`), or
 * `undefined` when it can: lower snake_case that maps back to itself, at most 128 characters (the
 * MCP limit), not `constructor`, not reserved by the kit (the rules of `rules/name.rules.ts`).
 * `shown` is how the caller typed it, quoted in the first message (default `name`).
 */
export function scaffoldToolNameProblem(name: string, shown: string = name): string | undefined {
  if (!isScaffoldToolName(name)) {
    return (
      `"${shown}" is not a valid tool name; use lower snake_case starting with a letter, each part ` +
      `after "_" starting with a letter, at most ${TOOL_NAME_MAX_LENGTH} characters, ` +
      `e.g. "${suggestSnakeCase(name) || 'scan_room'}"`
    );
  }
  if (name === 'constructor') return '"constructor" cannot be a method name; choose another name';
  if (isReservedToolName(name)) {
    return `"${name}" is reserved by the kit (${RESERVED_TOOL_NAMES.join(', ')}); choose another name, e.g. "my_${name}"`;
  }
  return undefined;
}
