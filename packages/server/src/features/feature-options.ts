import { type NativeTasksOptions } from './native-tasks/native-tasks.options.js';

/**
 * The bootstrap options of the built-in safety, session and event-feed features. Each option has an
 * `RMK_*` environment variable; an option given to `bootstrap()` wins over its variable.
 */
export interface SafetyFeatureOptions {
  /**
   * Read-only mode ("look but do not touch"): offer only the tools that do not act — a tool with
   * `actuates: true` or `destructiveHint: true` is not registered. `cancel_task` stays (cancelling
   * stops motion). Variable `RMK_READ_ONLY=1`, CLI flag `--read-only`.
   */
  readOnly?: boolean;
  /**
   * Glob patterns (`*`, `?`; `!pattern` excludes) limiting the tools offered. The kit's
   * reconciliation and event-feed tools stay unless a `!` pattern excludes them. Variable
   * `RMK_ALLOW_TOOLS` (comma-separated), CLI flag `--allow-tools`.
   */
  allowTools?: string | readonly string[];
  /**
   * Keep the tasks of a session that went away running: `true` for every task, or glob patterns of
   * the tools whose tasks stay (e.g. watchers). Default: a session's tasks are cancelled when it
   * ends. Variable `RMK_KEEP_TASKS` (`1` or comma-separated patterns).
   */
  keepTasksOnSessionEnd?: boolean | readonly string[];
}

/** Options of the event feed (`get_events`, `wait_for_event`). */
export interface EventFeedOptions {
  /** Offer the event feed tools (default true). Variable `RMK_EVENT_FEED=0` turns them off. */
  eventFeed?: boolean;
  /** Entries the feed keeps (default 500). Variable `RMK_EVENT_BUFFER`. */
  eventBuffer?: number;
}

/** Options of the task resources (`tasks://running`, `tasks://{task_id}`). */
export interface TaskResourcesOptions {
  /** Minimum time between two `notifications/resources/updated` of one URI, in ms (default 250). */
  resourceUpdateIntervalMs?: number;
}

/** Every option of the built-in features; `BootstrapOptions` extends it. */
export interface BuiltinFeatureOptions extends SafetyFeatureOptions, EventFeedOptions, TaskResourcesOptions {
  /** Native MCP tasks (SEP-1686): TTLs, poll interval, page size, progress notifications. */
  nativeTasks?: NativeTasksOptions;
}
