/** Options of the session clean-up: which tasks outlive the session that started them. */
export interface SessionCleanupOptions {
  /**
   * Keep the tasks of a session that went away running: `true` for every task, or glob patterns of
   * the tools whose tasks stay (e.g. watchers). Default: a session's tasks are cancelled when it
   * ends. Variable `RMK_KEEP_TASKS` (`1` or comma-separated patterns).
   */
  keepTasksOnSessionEnd?: boolean | readonly string[];
}
