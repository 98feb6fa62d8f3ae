/** Options of the task resources (`tasks://running`, `tasks://{task_id}`). */
export interface TaskResourcesOptions {
  /** Minimum time between two `notifications/resources/updated` of one URI, in ms (default 250). */
  resourceUpdateIntervalMs?: number;
}
