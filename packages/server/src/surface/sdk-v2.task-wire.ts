import { type ServerContext } from '@modelcontextprotocol/server';
import { scopeOf } from '../auth/task-owners.js';
import { taskPayloadResult } from '../task-views/task-payload.builder.js';
import { statusMessageOf } from '../task-views/task-status.mapper.js';
import { type SurfaceCaller, type TaskView } from './session-surface.port.js';

/** The tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/**
 * `_meta` key carrying the kit's own task id on CreateTaskResult and tasks/get: the id that
 * get_task, cancel_task, `tasks://` resources and the signed events use for the same task.
 */
export const KIT_TASK_ID_META_KEY = 'robot-mcp-kit/task_id';

/** Whether the request declared the tasks extension in its per-request client capabilities. */
export function declaresTasks(ctx: ServerContext): boolean {
  const sources = [ctx.mcpReq.envelope as unknown, ctx.mcpReq._meta as unknown];
  return sources.some((source) => {
    if (!isObject(source)) return false;
    const capabilities = source.clientCapabilities ?? source[CLIENT_CAPABILITIES_KEY];
    return (
      isObject(capabilities) &&
      isObject(capabilities.extensions) &&
      TASKS_EXTENSION in capabilities.extensions
    );
  });
}

/** The caller of a 2026-07-28 request: its bearer token's principal (none without auth) and scope. */
export function taskCallerOf(ctx: ServerContext): SurfaceCaller {
  const principal = ctx.http?.authInfo?.clientId;
  return principal === undefined ? { scope: scopeOf(principal) } : { scope: scopeOf(principal), principal };
}

/**
 * The SEP-2663 DetailedTask of a task: the result inlined once it ended (a CallToolResult with its
 * `resultType: "complete"`); a cancelled task has none. A kit task that failed is a tool error, so
 * it is `completed` with an `isError` result (the extension keeps `failed` for JSON-RPC errors).
 */
export function detailedTask(view: TaskView): Record<string, unknown> {
  const { info } = view;
  const statusMessage = statusMessageOf(info);
  const base = {
    taskId: view.handle,
    status: info.state === 'running' ? 'working' : info.state === 'cancelled' ? 'cancelled' : 'completed',
    ...(statusMessage !== undefined ? { statusMessage } : {}),
    createdAt: info.created_at.toISOString(),
    lastUpdatedAt: info.updated_at.toISOString(),
    ttlMs: view.ttl,
    pollIntervalMs: view.pollInterval,
    _meta: { [KIT_TASK_ID_META_KEY]: view.taskId },
  };
  if (info.state !== 'succeeded' && info.state !== 'failed') return base;
  // The inlined result is a 2026-07-28 CallToolResult: `resultType` is required there too.
  const { _meta: _related, ...result } = taskPayloadResult(info);
  return { ...base, result: { resultType: 'complete', ...result } };
}

/** The `resultType: "task"` answer (CreateTaskResult) of a tools/call that started the task. */
export function createdTaskResult(view: TaskView): Record<string, unknown> {
  const { result: _result, ...task } = detailedTask(view);
  return { resultType: 'task', ...task };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
