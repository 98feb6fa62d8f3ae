import { type StoredTask } from '@robot-mcp-kit/core/store';
import { type TaskInfoJson } from '@robot-mcp-kit/core';

/** The TaskInfo JSON of a `sleeper` task in `state`, created (and updated) at `createdMs`. */
export function taskJson(taskId: string, state: TaskInfoJson['state'], createdMs = Date.now()): TaskInfoJson {
  const at = new Date(createdMs).toISOString();
  return {
    task_id: taskId,
    server: 'sleeper',
    tool: 'sleep_task',
    state,
    created_at: at,
    updated_at: at,
    triggers: [],
    est_duration_s: null,
    progress: null,
    result: null,
    failure: null,
  };
}

/** A task as a TaskStore holds it; the defaults are an anonymous task at seq 2. */
export function storedTask(
  owner: string,
  taskId: string,
  state: TaskInfoJson['state'],
  options: { createdMs?: number; scope?: string; lastSeq?: number } = {},
): StoredTask {
  return {
    scope: options.scope ?? 'anonymous',
    owner,
    lastSeq: options.lastSeq ?? 2,
    task: taskJson(taskId, state, options.createdMs),
  };
}
