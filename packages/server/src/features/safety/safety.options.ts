/**
 * Options of the tool policy (read-only mode, allow list). Each option has an `RMK_*` environment
 * variable; an option given to `bootstrap()` wins over its variable.
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
}
