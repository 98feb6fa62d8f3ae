import { ConfigError, type Clock, type TaskManager, type TimerHandle } from '@robot-mcp-kit/core';
import { type Feature, type FeatureContext } from '../runtime/feature.types.js';
import { type SessionContext } from '../tools/registered-tool.js';
import { sessionIdleMsFromEnv } from '../transports/session-idle.config.js';
import { featureOptions, parseFlag } from './feature-config.js';
import { matchesAny, parseToolPatterns, type ToolPattern } from './safety/tool-patterns.js';

/** How long a session's clean-up waits for its cancelled tasks to settle. */
export const SESSION_CLEANUP_DEADLINE_MS = 5000;

/** Which tasks survive the end of the session that started them. */
export type KeepTasksPolicy = { readonly all: boolean; readonly patterns: readonly ToolPattern[] };

/**
 * Reads `keepTasksOnSessionEnd` / `RMK_KEEP_TASKS`: `1` keeps every task, `0` or unset none, and a
 * comma-separated list of tool globs keeps the tasks of those tools (e.g. `watch_*`). Also checks
 * `RMK_SESSION_IDLE_S` (read by the HTTP listener) so a bad value fails at start-up on any transport.
 * @throws ConfigError naming the option or variable
 */
export function resolveKeepTasks(ctx: Pick<FeatureContext, 'env' | 'options'>): KeepTasksPolicy {
  sessionIdleMsFromEnv(ctx.env);
  const option = featureOptions(ctx as FeatureContext).keepTasksOnSessionEnd;
  if (option !== undefined) {
    if (typeof option === 'boolean') return { all: option, patterns: [] };
    if (!Array.isArray(option)) {
      throw new ConfigError(
        'keepTasksOnSessionEnd',
        'expected true, false or an array of tool name patterns',
      );
    }
    return { all: false, patterns: parseToolPatterns('keepTasksOnSessionEnd', option) };
  }
  const raw = ctx.env.RMK_KEEP_TASKS?.trim();
  if (!raw) return { all: false, patterns: [] };
  if (/^[0-9]+$|^(true|false|yes|no|on|off)$/i.test(raw)) {
    return { all: parseFlag('RMK_KEEP_TASKS', raw) ?? false, patterns: [] };
  }
  const patterns = parseToolPatterns('RMK_KEEP_TASKS', raw);
  const excluding = patterns.find((p) => p.exclude);
  if (excluding) {
    throw new ConfigError(
      'RMK_KEEP_TASKS',
      `"${excluding.source}": "!" patterns are not supported here; list the tools to keep`,
    );
  }
  return { all: false, patterns };
}

/** Resolves when every promise settled or `ms` passed on the clock, whichever is first. */
async function settleWithin(
  promises: readonly Promise<unknown>[],
  ms: number,
  clock: Clock,
): Promise<boolean> {
  let timer: TimerHandle | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = clock.setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true as const), deadline]);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}

/**
 * Cancels the running tasks a session started, except those the policy keeps. Each task is marked
 * cancelled at once; the wait for the bodies to settle is bounded by `deadlineMs`.
 */
export async function cancelSessionTasks(
  session: SessionContext,
  deps: {
    starter: FeatureContext['starter'];
    taskManager: TaskManager;
    clock: Clock;
    logger: FeatureContext['logger'];
  },
  keep: KeepTasksPolicy,
  deadlineMs = SESSION_CLEANUP_DEADLINE_MS,
): Promise<string[]> {
  if (keep.all) return [];
  const ids = deps.starter.tasksOfSession(session.id).filter((id) => {
    const tool = deps.taskManager.get(id)?.tool;
    return tool !== undefined && !matchesAny(tool, keep.patterns);
  });
  if (ids.length === 0) return [];
  const settled = await settleWithin(
    ids.map((id) => deps.taskManager.cancel(id)),
    deadlineMs,
    deps.clock,
  );
  deps.logger.info('session ended; cancelled the tasks it started', {
    session: session.id,
    tasks: ids,
    settled,
  });
  return ids;
}

/**
 * Clean exit: when a session goes away (stdio EOF, streamable-HTTP DELETE or idle timeout, SSE
 * stream closed, in-memory transport closed) the tasks it started are cancelled, best effort within
 * 5 s, so a robot does not keep driving for an agent that is gone. Other sessions' tasks are
 * untouched. `RMK_KEEP_TASKS` / `keepTasksOnSessionEnd` keeps tasks (all, or those of some tools).
 */
export const sessionCleanupFeature: Feature = {
  name: 'session-cleanup',
  extension(ctx) {
    const keep = resolveKeepTasks(ctx);
    const longRunning = ctx.definition.tools.filter((t) => t.kind === 'long-running').map((t) => t.name);
    for (const pattern of keep.patterns) {
      if (!longRunning.some((name) => pattern.regex.test(name))) {
        throw new ConfigError(
          ctx.options.keepTasksOnSessionEnd !== undefined ? 'keepTasksOnSessionEnd' : 'RMK_KEEP_TASKS',
          `pattern "${pattern.source}" matches no long-running tool; they are ${longRunning.join(', ') || 'none'}`,
        );
      }
    }
    const deps = {
      starter: ctx.starter,
      taskManager: ctx.taskManager,
      clock: ctx.clock,
      logger: ctx.logger.child({ component: 'session-cleanup' }),
    };
    return {
      name: 'session-cleanup',
      async sessionClosed(session) {
        await cancelSessionTasks(session, deps, keep);
      },
    };
  },
};
