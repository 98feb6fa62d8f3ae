import { ConfigError } from '@robot-mcp-kit/core';
import { type Logger } from '@robot-mcp-kit/core';
import { type Feature } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { type RegisteredTool } from '../../tools/registered-tool.js';
import { checkBoolean, parseFlag } from '../feature-config.js';
import { type SafetyFeatureOptions } from './safety.options.js';
import { matchesAny, parseToolPatterns, type ToolPattern } from '../../rules/tool-pattern.rules.js';

/** What the tool policy does with the offered tools, resolved from options and environment. */
export interface ToolPolicy {
  /** Offer only the tools that do not act. */
  readonly readOnly: boolean;
  /** The allow list; empty when every tool is allowed. */
  readonly patterns: readonly ToolPattern[];
  /** Where the patterns came from (`RMK_ALLOW_TOOLS` or `allowTools`), for error messages. */
  readonly patternSource: string;
}

/**
 * Reads `readOnly` / `RMK_READ_ONLY` and `allowTools` / `RMK_ALLOW_TOOLS` (options win).
 * @throws ConfigError naming the option or variable
 */
export function resolveToolPolicy(env: NodeJS.ProcessEnv, options: SafetyFeatureOptions = {}): ToolPolicy {
  const readOnly =
    checkBoolean('readOnly', options.readOnly) ?? parseFlag('RMK_READ_ONLY', env.RMK_READ_ONLY) ?? false;
  if (options.allowTools !== undefined) {
    if (typeof options.allowTools !== 'string' && !Array.isArray(options.allowTools)) {
      throw new ConfigError(
        'allowTools',
        `expected a comma-separated string or an array of patterns, got ${typeof options.allowTools}`,
      );
    }
    return {
      readOnly,
      patterns: parseToolPatterns('allowTools', options.allowTools),
      patternSource: 'allowTools',
    };
  }
  const raw = env.RMK_ALLOW_TOOLS;
  const patterns = raw?.trim() ? parseToolPatterns('RMK_ALLOW_TOOLS', raw) : [];
  return { readOnly, patterns, patternSource: 'RMK_ALLOW_TOOLS' };
}

/** Whether read-only mode hides a tool: it actuates or says it is destructive. */
export function actsOnTheWorld(tool: RegisteredTool): boolean {
  return tool.actuates || tool.annotations.destructiveHint === true;
}

/**
 * Applies a policy: first the allow list (decorated tools must match an include pattern when there
 * is one; kit tools stay; a `!` pattern removes any tool), then read-only mode.
 * @throws ConfigError when a pattern matches no tool (a typo would otherwise hide tools silently)
 */
export function applyToolPolicy(tools: readonly RegisteredTool[], policy: ToolPolicy): RegisteredTool[] {
  for (const pattern of policy.patterns) {
    if (!tools.some((t) => pattern.regex.test(t.name))) {
      throw new ConfigError(
        policy.patternSource,
        `pattern "${pattern.source}" matches no tool; the tools are ${tools.map((t) => t.name).join(', ')}`,
      );
    }
  }
  const includes = policy.patterns.filter((p) => !p.exclude);
  const excludes = policy.patterns.filter((p) => p.exclude);
  return tools.filter((tool) => {
    if (matchesAny(tool.name, excludes)) return false;
    if (tool.origin !== 'kit' && includes.length > 0 && !matchesAny(tool.name, includes)) return false;
    return !(policy.readOnly && actsOnTheWorld(tool));
  });
}

/** Warns about tools that actuate but tell clients they are read-only. */
function warnMisannotated(tools: readonly RegisteredTool[], logger: Logger): void {
  for (const tool of tools) {
    if (tool.actuates && tool.annotations.readOnlyHint === true) {
      logger.warn('tool actuates but is annotated readOnlyHint: true; clients may run it without asking', {
        tool: tool.name,
      });
    }
  }
}

/**
 * Safety policy over the offered tools: read-only mode (`RMK_READ_ONLY`, `--read-only`) and the
 * allow list (`RMK_ALLOW_TOOLS`, `--allow-tools`). Tools it removes are never registered, so a
 * client cannot call them either.
 */
export function toolPolicyFeature(options: SafetyFeatureOptions = {}): Feature {
  return defineFeature({
    name: 'tool-policy',
    needs: ['env', 'logger'],
    setup(ctx) {
      const policy = resolveToolPolicy(ctx.env, options);
      return {
        filterTools(tools) {
          warnMisannotated(tools, ctx.logger);
          if (!policy.readOnly && policy.patterns.length === 0) return [...tools];
          const offered = applyToolPolicy(tools, policy);
          const kept = new Set(offered.map((t) => t.name));
          ctx.logger.info('tool policy applied', {
            read_only: policy.readOnly,
            allow: policy.patterns.map((p) => p.source),
            hidden: tools.filter((t) => !kept.has(t.name)).map((t) => t.name),
          });
          return offered;
        },
      };
    },
  });
}
