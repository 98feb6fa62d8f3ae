import { ConfigError, type Clock, type TaskManager, type TimerHandle } from '@robot-mcp-kit/core';
import { type Feature, type FeatureContext } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { type SessionContext } from '../../tools/registered-tool.js';
import { parseFlag } from '../feature-config.js';
import { type SessionCleanupOptions } from './session-cleanup.options.js';
import { matchesAny, parseToolPatterns, type ToolPattern } from '../../rules/tool-pattern.rules.js';

/** How long a session's clean-up waits for its cancelled tasks to settle. */
export const SESSION_CLEANUP_DEADLINE_MS = 5000;

/** Which tasks survive the end of the session that started them. */
export type KeepTasksPolicy = { readonly all: boolean; readonly patterns: readonly ToolPattern[] };

/**
 * Reads `keepTasksOnSessionEnd` / `RMK_KEEP_TASKS`: `1` keeps every task, `0` or unset none, and a
 * comma-separated list of tool globs keeps the tasks of those tools (e.g. `watch_*`). Since tasks
 * outlive their session by default, this only matters for `cancelOnDisconnect` tools. Also checks
 * `RMK_SESSION_IDLE_S` (read by the HTTP listener) so a bad value fails at start-up on any transport.
 * @throws ConfigError naming the option or variable
 */
export function resolveKeepTasks(
  env: NodeJS.ProcessEnv,
  options: SessionCleanupOptions = {},
): KeepTasksPolicy {
  const option = options.keepTasksOnSessionEnd;
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
  const raw = env.RMK_KEEP_TASKS?.trim();
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

/** Which tasks end with the session that started them. */
export interface DisconnectPolicy {
  /** True for the tools whose tasks are cancelled when their session goes away. */
  cancels(tool: string): boolean;
}

/**
 * The default rule: only the tasks of tools declared `cancelOnDisconnect: true` end with their
 * session, unless `RMK_KEEP_TASKS` / `keepTasksOnSessionEnd` keeps them too.
 */
export function disconnectPolicy(
  cancelOnDisconnect: ReadonlySet<string>,
  keep: KeepTasksPolicy,
): DisconnectPolicy {
  return {
    cancels: (tool) => cancelOnDisconnect.has(tool) && !keep.all && !matchesAny(tool, keep.patterns),
  };
}

/**
 * Cancels the running tasks a session started that the policy ends with it. Each task is marked
 * cancelled at once; the wait for the bodies to settle is bounded by `deadlineMs`.
 */
export async function cancelSessionTasks(
  session: SessionContext,
  deps: {
    owners: Pick<FeatureContext['owners'], 'runningOfSession'>;
    taskManager: TaskManager;
    clock: Clock;
    logger: FeatureContext['logger'];
  },
  policy: DisconnectPolicy,
  deadlineMs = SESSION_CLEANUP_DEADLINE_MS,
): Promise<string[]> {
  const ids = deps.owners.runningOfSession(session.id).filter((id) => {
    const tool = deps.taskManager.get(id)?.tool;
    return tool !== undefined && policy.cancels(tool);
  });
  if (ids.length === 0) return [];
  const settled = await settleWithin(
    // cancel answers promptly; the clean-up waits (bounded) for the bodies themselves to stop.
    ids.map((id) => deps.taskManager.cancel(id).then(() => deps.taskManager.whenStopped(id))),
    deadlineMs,
    deps.clock,
  );
  deps.logger.info('session ended; cancelled its cancelOnDisconnect tasks', {
    session: session.id,
    tasks: ids,
    settled,
  });
  return ids;
}

/**
 * Tasks outlive their session: a client that disconnects, a streamable-HTTP DELETE, an idle session
 * reaped or an SSE stream that closes never cancels the tasks it started, so the work goes on and
 * its events still reach the app (poll is the truth: `get_task` from any later session). The clean
 * exit is where the server itself ends (stdin EOF under stdio, SIGTERM/SIGINT: every task is
 * cancelled and events flushed). A tool whose work must stop with its caller (a hold-to-move teleop)
 * says `cancelOnDisconnect: true`; its tasks are cancelled, best effort within 5 s, when the session
 * that started them ends. `RMK_KEEP_TASKS` / `keepTasksOnSessionEnd` can still keep those.
 */
export function sessionCleanupFeature(options: SessionCleanupOptions = {}): Feature {
  return defineFeature({
    name: 'session-cleanup',
    needs: ['env', 'definition', 'owners', 'taskManager', 'clock', 'logger'],
    setup(ctx) {
      const keep = resolveKeepTasks(ctx.env, options);
      const longRunning = ctx.definition.tools.filter((t) => t.kind === 'long-running');
      const names = longRunning.map((t) => t.name);
      for (const pattern of keep.patterns) {
        if (!names.some((name) => pattern.regex.test(name))) {
          throw new ConfigError(
            options.keepTasksOnSessionEnd !== undefined ? 'keepTasksOnSessionEnd' : 'RMK_KEEP_TASKS',
            `pattern "${pattern.source}" matches no long-running tool; they are ${names.join(', ') || 'none'}`,
          );
        }
      }
      const policy = disconnectPolicy(
        new Set(longRunning.filter((t) => t.cancelOnDisconnect).map((t) => t.name)),
        keep,
      );
      const deps = {
        owners: ctx.owners,
        taskManager: ctx.taskManager,
        clock: ctx.clock,
        logger: ctx.logger.child({ component: 'session-cleanup' }),
      };
      return {
        extension: {
          name: 'session-cleanup',
          async sessionClosed(session) {
            await cancelSessionTasks(session, deps, policy);
          },
        },
      };
    },
  });
}
