import { IsArray, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TASK_STATES, type TaskInfo, type TaskManager, type TaskState } from '@robot-mcp-kit/core';
import { ANONYMOUS_SCOPE, type StoredTask } from '@robot-mcp-kit/core/store';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Tool } from '../decorators/tool.decorator.js';
import { type DtoSchemaBuilder } from '../schema/dto-schema.js';
import { type TaskOwners } from '../auth/task-owners.js';
import { type TaskStoreBridge } from '../store/task-store.bridge.js';
import { type ToolCallContext } from './decorated-tools.factory.js';
import { createKitTools, kitJsonResult, readOnlyKitTool } from './kit-tools.factory.js';
import { type RegisteredTool, type ToolCall } from './registered-tool.js';
import { MAX_LIST_LIMIT, pageOfTasks } from './task-list.pager.js';
import { kitToolResult } from './tool-results.js';
import { linkActiveSpanToTask } from '../telemetry/task-trace.link.js';

export class GetTaskArgs {
  @JSONSchema({ description: 'The task_id returned when the task was started, e.g. "nav-7f3a2b"' })
  @IsString()
  @IsNotEmpty()
  task_id!: string;
}

export class CancelTaskArgs {
  @JSONSchema({ description: 'The task_id of the running task to cancel' })
  @IsString()
  @IsNotEmpty()
  task_id!: string;
}

export class ListTasksArgs {
  @JSONSchema({
    description: `Only tasks in these states (${TASK_STATES.join(', ')}); all tasks when omitted. ["running"] after a restart.`,
  })
  @IsOptional()
  @IsArray()
  @IsIn(TASK_STATES, { each: true })
  states?: TaskState[] | null;

  @JSONSchema({
    description:
      `At most this many tasks in the answer (1 to ${MAX_LIST_LIMIT}; all by default). An answer is also cut ` +
      'before about 1 MB of JSON. When more remain, the answer has "next_cursor".',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_LIST_LIMIT)
  limit?: number | null;

  @JSONSchema({
    description: 'The next_cursor of the previous answer, to read the next page; omit for the first',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  cursor?: string | null;
}

const SUFFIX =
  'For status and cancellation of long-running tasks already started by another tool of this server — ' +
  'not for starting work.';

/** How long cancel_task of another replica's task waits for the owner to confirm (ms). */
export const REMOTE_CANCEL_WAIT_MS = 2000;

const GET_TASK =
  'Returns the TaskInfo JSON of a task (state, last progress, result or failure), or {"error": "not_found"}.';
const CANCEL_TASK =
  'Cancels a running task and returns {"task_id": ..., "state": ...}; cancelling a finished task returns ' +
  'its final state unchanged. Idempotent. "body_running": true means the task is cancelled but its work ' +
  'has not stopped yet ("overran_grace": true: it ignores cancellation); get_task shows when it stopped.';
const LIST_TASKS =
  'Returns {"tasks": [TaskInfo, ...]} in creation order, optionally only those in the given states; one page ' +
  'at a time: when more remain the answer also has "next_cursor" — pass it as cursor to read on.';

/**
 * The reconciliation tools of spec §3.3 — `get_task`, `cancel_task`, `list_tasks` — returning JSON
 * strings exactly as the spec defines them, declared with `@Tool` like an author's tools. With a task
 * store (`RMK_STORE`) they answer from this replica's TaskManager first and from the store for the
 * tasks of other replicas. Every replica applies the one rule of who may see, list and cancel a task
 * (`mayAccess` in auth/task-owners.ts: the caller's principal is the task's, or both anonymous), so
 * the answer never depends on the replica asked.
 */
export class ReconciliationTools {
  constructor(
    private readonly taskManager: TaskManager,
    private readonly stored?: TaskStoreBridge,
    private readonly owners?: Pick<TaskOwners, 'scopeOfSession' | 'allows'>,
  ) {}

  @Tool(readOnlyKitTool('get_task', `${GET_TASK} ${SUFFIX}`, 'Get task status'))
  getTask(args: GetTaskArgs, _ctx: ToolCallContext, call: ToolCall): Promise<CallToolResult> {
    return kitToolResult(async () =>
      kitJsonResult(
        this.local(call, args.task_id)?.toJSON() ??
          (await this.remote(call, args.task_id))?.task ?? { error: 'not_found' },
      ),
    );
  }

  @Tool({
    name: 'cancel_task',
    description: `${CANCEL_TASK} ${SUFFIX}`,
    title: 'Cancel task',
    annotations: {
      title: 'Cancel task',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  })
  cancelTask(args: CancelTaskArgs, _ctx: ToolCallContext, call: ToolCall): Promise<CallToolResult> {
    return kitToolResult(async () => {
      const info = this.local(call, args.task_id) && (await this.taskManager.cancel(args.task_id));
      if (!info) return kitJsonResult(await this.cancelRemote(await this.remote(call, args.task_id)));
      // A cancelled task whose body has not stopped says so (docs/core.md, "Cancellation").
      const { body_running, overran_grace } = info.toJSON();
      return kitJsonResult({
        task_id: info.task_id,
        state: info.state,
        ...(body_running ? { body_running, ...(overran_grace ? { overran_grace } : {}) } : {}),
      });
    });
  }

  @Tool(readOnlyKitTool('list_tasks', `${LIST_TASKS} ${SUFFIX}`, 'List tasks'))
  listTasks(args: ListTasksArgs, _ctx: ToolCallContext, call: ToolCall): Promise<CallToolResult> {
    return kitToolResult(async () => {
      const { stored, taskManager } = this;
      const scope = this.scopeOf(call);
      const allows = (taskId: string): boolean => this.owners?.allows(scope, taskId) ?? true;
      const tasks = stored?.active
        ? await stored.tasksOf(scope, allows)
        : taskManager.list().filter((t) => allows(t.task_id));
      const page = pageOfTasks(tasks, {
        states: args.states ?? undefined,
        limit: args.limit ?? Infinity,
        cursor: args.cursor ?? undefined,
        logger: taskManager.logger,
      });
      return kitJsonResult(page.value, page.text);
    });
  }

  private scopeOf(call: ToolCall): string {
    return this.owners?.scopeOfSession(call.session.id) ?? ANONYMOUS_SCOPE;
  }

  /** This replica's task, if the caller may see it (else the store is asked: a relayed task). */
  private local(call: ToolCall, taskId: string): TaskInfo | undefined {
    const info = this.taskManager.get(taskId);
    if (!info || !(this.owners?.allows(this.scopeOf(call), taskId) ?? true)) return undefined;
    linkActiveSpanToTask(this.taskManager, taskId);
    return info;
  }

  private async remote(call: ToolCall, taskId: string): Promise<StoredTask | undefined> {
    return this.stored?.active ? this.stored.get(this.scopeOf(call), taskId) : undefined;
  }

  private async cancelRemote(entry: StoredTask | undefined): Promise<object> {
    if (!entry || !this.stored) return { error: 'not_found' };
    const last = await this.stored.cancelRemote(entry, REMOTE_CANCEL_WAIT_MS);
    const { body_running, overran_grace } = last.task;
    return {
      task_id: last.task.task_id,
      state: last.task.state,
      ...(body_running ? { body_running, ...(overran_grace ? { overran_grace } : {}) } : {}),
    };
  }
}

/** The reconciliation tools of one app, built through the authors' definitions path. */
export function createReconciliationTools(
  taskManager: TaskManager,
  schemas: DtoSchemaBuilder,
  stored?: TaskStoreBridge,
  owners?: Pick<TaskOwners, 'scopeOfSession' | 'allows'>,
): RegisteredTool[] {
  return createKitTools(new ReconciliationTools(taskManager, stored, owners), {
    schemas,
    taskManager,
    logger: taskManager.logger,
  });
}
