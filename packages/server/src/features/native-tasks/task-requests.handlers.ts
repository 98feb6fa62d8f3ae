import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  CancelTaskRequestSchema,
  type CancelTaskResult,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  type GetTaskResult,
  ListTasksRequestSchema,
  type ListTasksResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { type TaskInfo } from '@robot-mcp-kit/core';
import { type SessionContext } from '../../tools/registered-tool.js';
import { TaskNotCancellableError, UnknownTaskError } from './native-task.errors.js';
import { type NativeTaskEntry } from './native-task.index.js';
import { type NativeTaskService } from './native-task.service.js';
import { taskPayloadResult } from '../../task-views/task-payload.builder.js';
import { PROTOCOL_STATUS, toProtocolTask } from '../../task-views/task-status.mapper.js';
import { linkActiveSpanToTask } from '../../telemetry/task-trace.link.js';

/** The tasks capability: tasks/list, tasks/cancel, and task-augmented tools/call. */
export const TASKS_CAPABILITY: NonNullable<ServerCapabilities['tasks']> = Object.freeze({
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
});

/**
 * Answers tasks/get, tasks/result, tasks/list and tasks/cancel for one session, from the
 * TaskManager through the service's index. Must run before the server connects (it registers the
 * tasks capability).
 */
export function installTaskRequestHandlers(
  server: Server,
  session: SessionContext,
  service: NativeTaskService,
  allows: (taskId: string) => boolean = () => true,
): void {
  const requests = new TaskRequests(service, session, allows);
  server.registerCapabilities({ tasks: TASKS_CAPABILITY });
  server.setRequestHandler(GetTaskRequestSchema, (request) => requests.get(request.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) =>
    requests.result(request.params.taskId, extra.signal),
  );
  server.setRequestHandler(ListTasksRequestSchema, (request) => requests.list(request.params?.cursor));
  server.setRequestHandler(CancelTaskRequestSchema, (request) => requests.cancel(request.params.taskId));
}

/**
 * The tasks/* operations of one session: the tasks it created, that the one visibility rule allows
 * its principal too (`allows`: `TaskOwners.allows`, as get_task; a session is bound to its principal).
 */
export class TaskRequests {
  constructor(
    private readonly service: NativeTaskService,
    private readonly session: SessionContext,
    private readonly allows: (taskId: string) => boolean = () => true,
  ) {}

  /** tasks/get: status, statusMessage (last progress), timestamps, ttl, pollInterval. */
  get(taskId: string): GetTaskResult {
    const { entry, info } = this.lookup(taskId);
    return toProtocolTask(info, entry);
  }

  /** tasks/result: waits for the end (or the request's cancellation), then the final CallToolResult. */
  async result(taskId: string, signal: AbortSignal): Promise<CallToolResult> {
    let { entry, info } = this.lookup(taskId);
    while (info.state === 'running') {
      await this.service.index.waitForEnd(entry, signal);
      ({ entry, info } = this.lookup(taskId));
    }
    return taskPayloadResult(info);
  }

  /** tasks/list: this session's tasks in creation order, one page per cursor. */
  list(cursor: string | undefined): ListTasksResult {
    const page = this.service.index.page(this.session, cursor, this.service.options.pageSize);
    const tasks = page.entries.flatMap((entry) => {
      const info = this.allows(entry.taskId) ? this.service.snapshot(entry) : undefined;
      return info ? [toProtocolTask(info, entry)] : [];
    });
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }

  /**
   * tasks/cancel: cancels through the TaskManager (the body's signal aborts; no terminal push event)
   * and answers the cancelled task. A finished task is refused with -32602 and stays as it is.
   */
  async cancel(taskId: string): Promise<CancelTaskResult> {
    const { entry, info } = this.lookup(taskId);
    if (info.state !== 'running') throw new TaskNotCancellableError(taskId, PROTOCOL_STATUS[info.state]);
    const after = (await this.service.taskManager.cancel(taskId)) ?? this.service.snapshot(entry);
    if (!after || after.state !== 'cancelled') {
      throw new TaskNotCancellableError(taskId, after ? PROTOCOL_STATUS[after.state] : 'completed');
    }
    return toProtocolTask(after, entry);
  }

  private lookup(taskId: string): { entry: NativeTaskEntry; info: TaskInfo } {
    const entry = this.service.index.get(taskId, this.session);
    const info = entry && this.service.snapshot(entry);
    if (!entry || !info || !this.allows(taskId)) throw new UnknownTaskError(taskId);
    linkActiveSpanToTask(this.service.taskManager, entry.taskId);
    return { entry, info };
  }
}
