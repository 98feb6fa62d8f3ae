import { type CreateTaskResult, type TaskMetadata } from '@modelcontextprotocol/sdk/types.js';
import { type TaskContext, type TaskInfo } from '@robot-mcp-kit/core';
import { type RegisteredTool, type ToolCall } from '../../tools/registered-tool.js';
import { TaskStartError } from './native-task.errors.js';
import { type NativeTaskService } from './native-task.service.js';
import { grantedTtl } from './native-tasks.options.js';
import { toProtocolTask } from './task-status.mapper.js';

/**
 * Offers a long-running tool (one with `start`) as an MCP task: lists `execution.taskSupport:
 * "optional"`, answers task-augmented calls with a CreateTaskResult whose taskId is the TaskManager
 * task id, and forwards progress as notifications/progress when the call carries a progressToken.
 * A plain call still returns the TaskInfo JSON at once (dual mode). Other tools pass through.
 */
export function withTaskSupport(tool: RegisteredTool, service: NativeTaskService): RegisteredTool {
  const start = tool.start?.bind(tool);
  if (!start) return tool;
  return {
    ...tool,
    execution: { ...tool.execution, taskSupport: 'optional' },
    async call(args: unknown, call: ToolCall) {
      const token = call.extra._meta?.progressToken;
      if (token === undefined) return tool.call(args, call);
      // A plain call answers at once: its token is valid only until then (the client forgets it
      // with the response), so progress is routed only while the request is in flight.
      let inFlight = true;
      let routed: string | undefined;
      const route = (ctx: TaskContext) => {
        if (!inFlight) return;
        routed = ctx.taskId;
        service.routeProgress(ctx.taskId, call.session, token, false);
      };
      try {
        return await tool.call(args, withBodyStart(call, route));
      } finally {
        inFlight = false;
        if (routed !== undefined) service.unrouteProgress(routed);
      }
    },
    async callAsTask(args: unknown, call: ToolCall, task: TaskMetadata): Promise<CreateTaskResult> {
      const ttl = grantedTtl(task.ttl, service.options);
      const token = call.extra._meta?.progressToken;
      const onStart = (ctx: TaskContext) => {
        service.track(ctx.taskId, call.session, ttl);
        if (token !== undefined) service.routeProgress(ctx.taskId, call.session, token, true);
      };
      let started: TaskInfo;
      try {
        started = await start(args, withBodyStart(call, onStart));
      } catch (err) {
        throw new TaskStartError(tool.name, err);
      }
      const entry = service.track(started.task_id, call.session, ttl);
      return { task: toProtocolTask(service.snapshot(entry) ?? started, entry) };
    },
  };
}

/** `call` with `hook` run at the body start, after any hook it already had. */
function withBodyStart(call: ToolCall, hook: (ctx: TaskContext) => void): ToolCall {
  const previous = call.onTaskBodyStart;
  return {
    ...call,
    onTaskBodyStart: previous
      ? (ctx) => {
          previous(ctx);
          hook(ctx);
        }
      : hook,
  };
}
