import {
  type Logger,
  type TaskInfo,
  type TaskInfoJson,
  type TaskManager,
  type TaskState,
} from '@robot-mcp-kit/core';
import { ToolArgumentsError } from '../errors/server.error.js';

/** The largest `limit` of list_tasks. Without one, only the byte cap cuts an answer. */
export const MAX_LIST_LIMIT = 1000;

/** The most bytes of TaskInfo JSON one list_tasks answer holds (a single larger task still goes alone). */
export const MAX_LIST_BYTES = 1_000_000;

/** One list_tasks answer, already serialized. */
export interface ListPage {
  readonly kind: 'list-page';
  /** `{"tasks": [...]}` plus `"next_cursor"` when more remain. */
  readonly text: string;
  /** The same answer as an object (list_tasks' structuredContent). */
  readonly value: { tasks: Partial<TaskInfoJson>[]; next_cursor?: string };
  readonly count: number;
  readonly nextCursor?: string;
}

export interface PageRequest {
  readonly states?: readonly TaskState[];
  readonly limit: number;
  readonly cursor?: string;
  readonly logger: Logger;
  readonly maxBytes?: number;
}

/**
 * One page of the TaskManager's tasks in creation order: at most `limit` tasks and about
 * `maxBytes` of JSON (at least one task, so paging always moves on). The cursor names the last
 * task returned and its creation time, so a page continues after it even when that task was evicted
 * meanwhile (a task created in the same millisecond may then be listed twice, never skipped).
 * Never throws on a task's JSON: a task that cannot be serialized is listed as a stub.
 * @throws ToolArgumentsError for a cursor this server did not hand out
 */
export function pageOfTasks(source: TaskManager | readonly TaskInfo[], request: PageRequest): ListPage {
  const all = Array.isArray(source) ? (source as readonly TaskInfo[]) : (source as TaskManager).list();
  const start = request.cursor === undefined ? 0 : startAfter(all, request.cursor);
  const wanted = request.states ? new Set(request.states) : undefined;
  const maxBytes = request.maxBytes ?? MAX_LIST_BYTES;
  const parts: string[] = [];
  const tasks: Partial<TaskInfoJson>[] = [];
  let bytes = 0;
  let last: TaskInfo | undefined;
  let more = false;
  for (let i = start; i < all.length; i += 1) {
    const task = all[i]!;
    if (wanted && !wanted.has(task.state)) continue;
    if (parts.length >= request.limit) {
      more = true;
      break;
    }
    const { value, json } = taskJson(task, request.logger);
    const size = Buffer.byteLength(json);
    if (parts.length > 0 && bytes + size > maxBytes) {
      more = true;
      break;
    }
    parts.push(json);
    tasks.push(value);
    bytes += size + 1;
    last = task;
  }
  const nextCursor = more && last ? cursorOf(last) : undefined;
  const tail = nextCursor === undefined ? '' : `,"next_cursor":${JSON.stringify(nextCursor)}`;
  return {
    kind: 'list-page',
    text: `{"tasks":[${parts.join(',')}]${tail}}`,
    value: nextCursor === undefined ? { tasks } : { tasks, next_cursor: nextCursor },
    count: parts.length,
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}

function cursorOf(task: TaskInfo): string {
  return `${task.created_at.getTime()}.${task.task_id}`;
}

/** The index of the first task after the cursor's one. */
function startAfter(all: readonly TaskInfo[], cursor: string): number {
  const match = /^(\d{1,15})\.(.{1,150})$/.exec(cursor);
  if (!match) {
    throw new ToolArgumentsError('list_tasks', [
      'cursor: not a list_tasks cursor; pass the next_cursor of the previous answer, or no cursor for the first page',
    ]);
  }
  const createdMs = Number(match[1]);
  const taskId = match[2];
  const index = all.findIndex((t) => t.task_id === taskId);
  if (index >= 0) return index + 1;
  const later = all.findIndex((t) => t.created_at.getTime() >= createdMs);
  return later < 0 ? all.length : later;
}

function taskJson(task: TaskInfo, logger: Logger): { value: Partial<TaskInfoJson>; json: string } {
  try {
    const value = task.toJSON();
    return { value, json: JSON.stringify(value) };
  } catch (err) {
    logger.error('list_tasks: a task cannot be serialized; listed without its details', {
      task_id: task.task_id,
      error: err instanceof Error ? err.message : String(err),
    });
    const value = {
      task_id: task.task_id,
      server: task.server,
      tool: task.tool,
      state: task.state,
      created_at: task.created_at.toISOString(),
      updated_at: task.updated_at.toISOString(),
    };
    return { value, json: JSON.stringify(value) };
  }
}
