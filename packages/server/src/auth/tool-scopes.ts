import { ConfigError } from '@robot-mcp-kit/core';

/** The OAuth scope names the per-tool check asks for (`RMK_SCOPE_*`, `auth.scopes`). */
export interface ToolScopeNames {
  /** Reading tools (everything that does not actuate): default `robot:read`. */
  readonly read: string;
  /** Actuating tools without a scope of their own: default `robot:actuate`. */
  readonly actuate: string;
  /** The re-arm tool that releases a latched e-stop: default `robot:rearm`. */
  readonly rearm: string;
}

/** The default scope names. */
export const DEFAULT_TOOL_SCOPES: ToolScopeNames = Object.freeze({
  read: 'robot:read',
  actuate: 'robot:actuate',
  rearm: 'robot:rearm',
});

/** What the per-tool check needs to know of a tool. */
export interface ScopedTool {
  readonly actuates: boolean;
  /**
   * The tool's own scope (`@Tool({ scope })`); `null` for a tool any valid token may call (the
   * e-stop); undefined for the default of its kind.
   */
  readonly scope?: string | null;
  /** The latching e-stop (any valid token) or the tool that re-arms it (`rearm` scope). */
  readonly safety?: 'estop' | 'rearm';
}

/**
 * THE rule of which scopes a tools/call needs: none for the e-stop (any valid token stops the
 * robot), `rearm` for the re-arm tool, the tool's own scope when it names one (none when `null`),
 * else `actuate` for an actuating tool and `read` for every other.
 */
export function requiredScopesOf(tool: ScopedTool, names: ToolScopeNames): string[] {
  if (tool.safety === 'estop' || tool.scope === null) return [];
  if (tool.safety === 'rearm') return [names.rearm];
  if (tool.scope !== undefined) return [tool.scope];
  return [tool.actuates ? names.actuate : names.read];
}

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Whether a value is an RFC 6749 scope token (a scope name). */
export function isScopeName(value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value);
}

/**
 * Checks one scope name.
 * @throws ConfigError naming `where` when it is not an RFC 6749 scope token
 */
export function checkScopeName(where: string, value: unknown): string {
  if (isScopeName(value)) return value;
  throw new ConfigError(
    where,
    `${JSON.stringify(value)} is not a scope name; use printable ASCII without spaces, quotes or backslashes, e.g. robot:drive`,
  );
}

/**
 * The scope names: options win over `RMK_SCOPE_READ`, `RMK_SCOPE_ACTUATE`, `RMK_SCOPE_REARM`,
 * which win over the defaults.
 * @throws ConfigError naming the option or variable
 */
export function toolScopeNames(
  env: NodeJS.ProcessEnv,
  options: Partial<ToolScopeNames> = {},
): ToolScopeNames {
  const pick = (key: keyof ToolScopeNames, variable: string): string => {
    if (options[key] !== undefined) return checkScopeName(`auth.scopes.${key}`, options[key]);
    const raw = env[variable]?.trim();
    return raw ? checkScopeName(variable, raw) : DEFAULT_TOOL_SCOPES[key];
  };
  return {
    read: pick('read', 'RMK_SCOPE_READ'),
    actuate: pick('actuate', 'RMK_SCOPE_ACTUATE'),
    rearm: pick('rearm', 'RMK_SCOPE_REARM'),
  };
}
