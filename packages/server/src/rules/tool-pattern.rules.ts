import { ConfigError } from '@robot-mcp-kit/core';

/** One glob pattern over tool names: `*` any run of characters, `?` one character, `!` excludes. */
export interface ToolPattern {
  /** The pattern as written, `!` included. */
  readonly source: string;
  readonly exclude: boolean;
  readonly regex: RegExp;
}

const PATTERN = /^!?[A-Za-z0-9_.\-*?]{1,128}$/;

/** Compiles a glob (`*`, `?`) over tool names into an anchored regular expression. */
export function compileGlob(glob: string): RegExp {
  const body = [...glob]
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch === '.' ? '\\.' : ch))
    .join('');
  return new RegExp(`^${body}$`);
}

/**
 * Parses a comma-separated list (or an array) of tool-name globs.
 * @throws ConfigError naming `variable` for an empty entry or a character a tool name cannot hold
 */
export function parseToolPatterns(variable: string, raw: string | readonly string[]): ToolPattern[] {
  const list = typeof raw === 'string' ? raw.split(',') : [...raw];
  const patterns: ToolPattern[] = [];
  list.forEach((entry, index) => {
    const source = typeof entry === 'string' ? entry.trim() : '';
    if (!PATTERN.test(source)) {
      throw new ConfigError(
        variable,
        `pattern ${index + 1} (${JSON.stringify(entry)}) is not valid; use comma-separated tool names or ` +
          `globs of letters, digits, "_", "-", ".", "*" and "?", optionally starting with "!" to exclude, ` +
          'e.g. "get_*,navigate_to,!stop"',
      );
    }
    const exclude = source.startsWith('!');
    patterns.push({ source, exclude, regex: compileGlob(exclude ? source.slice(1) : source) });
  });
  return patterns;
}

/** Whether any of `patterns` matches `name` (the `!` of a pattern is ignored here). */
export function matchesAny(name: string, patterns: readonly ToolPattern[]): boolean {
  return patterns.some((p) => p.regex.test(name));
}
