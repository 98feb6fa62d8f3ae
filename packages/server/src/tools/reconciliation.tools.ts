import { IsArray, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  RobotMcpKitError,
  type StoredTask,
  TASK_STATES,
  type TaskManager,
  type TaskState,
} from '@robot-mcp-kit/core';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { validateArguments } from '../schema/argument.validator.js';
import { type DtoSchemaBuilder } from '../schema/dto-schema.js';
import { type DtoClass } from '../metadata/decorator-args.types.js';
import { type TaskStoreBridge } from '../runtime/task-store.bridge.js';
import { type RegisteredTool, type ToolCall } from './registered-tool.js';
import { type ListPage, MAX_LIST_LIMIT, pageOfTasks } from './task-list.pager.js';
import { jsonTextResult, toolErrorResult } from './tool-results.js';

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

/**
 * The reconciliation tools of spec §3.3 — `get_task`, `cancel_task`, `list_tasks` — returning JSON
 * strings exactly as the spec defines them. With a task store (`RMK_STORE`) they answer from this
 * replica's TaskManager first and from the store for the tasks of other replicas (same principal).
 */
export function createReconciliationTools(
  taskManager: TaskManager,
  schemas: DtoSchemaBuilder,
  stored?: TaskStoreBridge,
): RegisteredTool[] {
  const scopeOf = (call: ToolCall): string => stored?.scopeOfSession(call.session.id) ?? '';
  const remote = async (call: ToolCall, taskId: string): Promise<StoredTask | undefined> =>
    stored?.active ? stored.get(scopeOf(call), taskId) : undefined;
  const tool = (
    name: string,
    description: string,
    dto: DtoClass,
    annotations: RegisteredTool['annotations'],
    run: (args: Record<string, unknown>, call: ToolCall) => Promise<unknown>,
  ): RegisteredTool => ({
    name,
    description: `${description} ${SUFFIX}`,
    annotations,
    inputSchema: schemas.build(dto),
    origin: 'kit',
    longRunning: false,
    actuates: false,
    async call(raw: unknown, call: ToolCall): Promise<CallToolResult> {
      try {
        const args = (await validateArguments(name, dto, raw)) as Record<string, unknown>;
        const value = await run(args, call);
        return isListPage(value) ? { content: [{ type: 'text', text: value.text }] } : jsonTextResult(value);
      } catch (err) {
        return toolErrorResult(err instanceof RobotMcpKitError ? err.message : String(err));
      }
    },
  });

  const cancelRemote = async (entry: StoredTask | undefined): Promise<unknown> => {
    if (!entry || !stored) return { error: 'not_found' };
    const last = await stored.cancelRemote(entry, REMOTE_CANCEL_WAIT_MS);
    const { body_running, overran_grace } = last.task;
    return {
      task_id: last.task.task_id,
      state: last.task.state,
      ...(body_running ? { body_running, ...(overran_grace ? { overran_grace } : {}) } : {}),
    };
  };

  return [
    tool(
      'get_task',
      'Returns the TaskInfo JSON of a task (state, last progress, result or failure), or {"error": "not_found"}.',
      GetTaskArgs,
      { title: 'Get task status', readOnlyHint: true, openWorldHint: false },
      async (args, call) =>
        taskManager.get(args.task_id as string)?.toJSON() ??
        (await remote(call, args.task_id as string))?.task ?? { error: 'not_found' },
    ),
    tool(
      'cancel_task',
      'Cancels a running task and returns {"task_id": ..., "state": ...}; cancelling a finished task returns ' +
        'its final state unchanged. Idempotent. "body_running": true means the task is cancelled but its work ' +
        'has not stopped yet ("overran_grace": true: it ignores cancellation); get_task shows when it stopped.',
      CancelTaskArgs,
      {
        title: 'Cancel task',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      async (args, call) => {
        const info = await taskManager.cancel(args.task_id as string);
        if (!info) return cancelRemote(await remote(call, args.task_id as string));
        // A cancelled task whose body has not stopped says so (docs/core.md, "Cancellation").
        const { body_running, overran_grace } = info.toJSON();
        return {
          task_id: info.task_id,
          state: info.state,
          ...(body_running ? { body_running, ...(overran_grace ? { overran_grace } : {}) } : {}),
        };
      },
    ),
    tool(
      'list_tasks',
      'Returns {"tasks": [TaskInfo, ...]} in creation order, optionally only those in the given states; one page ' +
        'at a time: when more remain the answer also has "next_cursor" — pass it as cursor to read on.',
      ListTasksArgs,
      { title: 'List tasks', readOnlyHint: true, openWorldHint: false },
      async (args, call) =>
        pageOfTasks(stored?.active ? await stored.tasksOf(scopeOf(call)) : taskManager, {
          states: (args.states as TaskState[] | null | undefined) ?? undefined,
          limit: (args.limit as number | null | undefined) ?? Infinity,
          cursor: (args.cursor as string | null | undefined) ?? undefined,
          logger: taskManager.logger,
        }),
    ),
  ];
}

function isListPage(value: unknown): value is ListPage {
  return typeof value === 'object' && value !== null && (value as ListPage).kind === 'list-page';
}
