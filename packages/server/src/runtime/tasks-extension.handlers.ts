import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { parseTaskInfo, type TaskInfo, type TaskManager } from '@robot-mcp-kit/core';
import { type StoredTask } from '@robot-mcp-kit/core/store';
import { z } from 'zod';
import { taskPayloadResult } from '../task-views/task-payload.builder.js';
import { statusMessageOf } from '../task-views/task-status.mapper.js';
import { scopeOf } from '../auth/task-owners.js';
import { type ExtensionTaskEntry, type ExtensionTaskIndex } from './extension-task.index.js';
import { type TaskStoreBridge } from './task-store.bridge.js';
import { linkActiveSpanToTask } from '../telemetry/task-trace.link.js';

/** How long tasks/cancel of another replica's task waits for the owner to confirm. */
const REMOTE_CANCEL_WAIT_MS = 2000;

/** A task found by its handle: here (`stored` undefined) or on another replica through the store. */
interface FoundTask {
  readonly entry: ExtensionTaskEntry;
  readonly info: TaskInfo;
  readonly stored?: StoredTask;
}

/** The tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/**
 * `_meta` key carrying the kit's own task id on CreateTaskResult and tasks/get: the id that
 * get_task, cancel_task, `tasks://` resources and the signed events use for the same task.
 */
export const KIT_TASK_ID_META_KEY = 'robot-mcp-kit/task_id';

/** TTL and poll interval the extension's tasks are given. */
export interface TasksExtensionOptions {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
}

export const TASKS_EXTENSION_DEFAULTS: TasksExtensionOptions = Object.freeze({
  ttlMs: 60 * 60 * 1000,
  pollIntervalMs: 1000,
});

const TaskIdParams = z.looseObject({ taskId: z.string() });

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

/** The principal of a 2026-07-28 request (undefined without auth). */
export function principalOf(ctx: ServerContext): string | undefined {
  return ctx.http?.authInfo?.clientId;
}

/**
 * SEP-2663 on the MCP 2026-07-28 leg: `CreateTaskResult` for long-running tools, and the
 * `tasks/get`, `tasks/update`, `tasks/cancel` methods over the kit's TaskManager (one task, the same
 * state as get_task, cancel_task, SEP-1686 and the events). The wire `taskId` is a high-entropy
 * handle bound to the creating principal. A kit task that failed is a tool error, so it is
 * `completed` with an `isError` result (the extension keeps `failed` for JSON-RPC errors).
 */
export class TasksExtension {
  constructor(
    private readonly taskManager: TaskManager,
    private readonly index: ExtensionTaskIndex,
    private readonly options: TasksExtensionOptions = TASKS_EXTENSION_DEFAULTS,
    /** With a shared task store (`RMK_STORE`), handles are recorded there: any replica answers. */
    private readonly stored?: TaskStoreBridge,
  ) {}

  /**
   * The `resultType: "task"` answer of a tools/call that started `info`, readable by tasks/get
   * before it is returned (durable creation: with a task store, on every replica).
   */
  async created(info: TaskInfo, ctx: ServerContext): Promise<Record<string, unknown>> {
    const entry = this.index.add(
      info.task_id,
      principalOf(ctx),
      this.options.ttlMs,
      this.options.pollIntervalMs,
    );
    await this.stored?.putAlias(entry.handle, entry.taskId, entry.ttlMs);
    const current = this.taskManager.get(info.task_id) ?? info;
    const { result: _result, ...task } = this.detailed(entry, current);
    return { resultType: 'task', ...task };
  }

  /** Installs tasks/get, tasks/update and tasks/cancel on one v2 server. */
  install(server: Server): void {
    server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
      const { entry, info } = await this.lookup(params.taskId, ctx);
      return { resultType: 'complete', ...this.detailed(entry, info) };
    });
    server.setRequestHandler('tasks/update', { params: TaskIdParams }, async (params, ctx) => {
      await this.lookup(params.taskId, ctx); // the kit's tasks never ask for input: nothing to apply
      return { resultType: 'complete' };
    });
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
      const { entry, stored } = await this.lookup(params.taskId, ctx);
      if (stored) await this.stored?.cancelRemote(stored, REMOTE_CANCEL_WAIT_MS);
      else await this.taskManager.cancel(entry.taskId);
      return { resultType: 'complete' };
    });
  }

  private async lookup(handle: string, ctx: ServerContext): Promise<FoundTask> {
    if (!declaresTasks(ctx)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `Missing required client capability: declare the ${TASKS_EXTENSION} extension to use ${ctx.mcpReq.method}`,
      );
    }
    const entry = this.index.get(handle, principalOf(ctx));
    const info = entry && this.taskManager.get(entry.taskId);
    const found = entry && info ? { entry, info } : await this.lookupElsewhere(handle, ctx);
    if (!found) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    }
    linkActiveSpanToTask(this.taskManager, found.entry.taskId);
    return found;
  }

  /** A handle created on another replica, through the shared task store (scoped to the principal). */
  private async lookupElsewhere(handle: string, ctx: ServerContext): Promise<FoundTask | undefined> {
    if (!this.stored?.active) return undefined;
    const principal = principalOf(ctx);
    const stored = await this.stored.getByAlias(scopeOf(principal), handle);
    if (!stored) return undefined;
    const info = parseTaskInfo(JSON.stringify(stored.task)); // a value of any realm
    const entry: ExtensionTaskEntry = {
      handle,
      taskId: stored.task.task_id,
      principal,
      createdAt: info.created_at.getTime(),
      ttlMs: this.options.ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
    };
    return { entry, info, stored };
  }

  /**
   * The DetailedTask of `info`: the result inlined once it ended (a CallToolResult with its
   * `resultType: "complete"`); a cancelled task has none.
   */
  private detailed(entry: ExtensionTaskEntry, info: TaskInfo): Record<string, unknown> {
    const statusMessage = statusMessageOf(info);
    const base = {
      taskId: entry.handle,
      status: info.state === 'running' ? 'working' : info.state === 'cancelled' ? 'cancelled' : 'completed',
      ...(statusMessage !== undefined ? { statusMessage } : {}),
      createdAt: info.created_at.toISOString(),
      lastUpdatedAt: info.updated_at.toISOString(),
      ttlMs: entry.ttlMs,
      pollIntervalMs: entry.pollIntervalMs,
      _meta: { [KIT_TASK_ID_META_KEY]: entry.taskId },
    };
    if (info.state !== 'succeeded' && info.state !== 'failed') return base;
    // The inlined result is a 2026-07-28 CallToolResult: `resultType` is required there too.
    const { _meta: _related, ...result } = taskPayloadResult(info);
    return { ...base, result: { resultType: 'complete', ...result } };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
