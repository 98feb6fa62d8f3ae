/** The wire contract version carried in every TaskEvent (`schema_version`). */
export const SCHEMA_VERSION = 1;

/** Every state a task can be in; `running` is the only non-terminal one. */
export const TASK_STATES = ['running', 'succeeded', 'failed', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Every event type a server pushes. */
export const EVENT_TYPES = ['progress', 'trigger_fired', 'task_done', 'task_failed', 'watch_event'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The terminal states (every state but `running`): once in one, a task never changes again. */
export function isTerminalState(state: TaskState): boolean {
  return state !== 'running';
}
