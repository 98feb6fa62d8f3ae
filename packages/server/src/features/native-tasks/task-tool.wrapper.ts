import { type CreateTaskResult, type TaskMetadata } from '@modelcontextprotocol/sdk/types.js';
import { type TaskInfo } from '@robot-mcp-kit/core';
import { type RegisteredTool, type ToolCall } from '../../tools/registered-tool.js';
import { TaskStartError } from './native-task.errors.js';
import { NATIVE_TASK_TAG, type NativeTaskCall, type NativeTaskService } from './native-task.service.js';
import { grantedTtl } from './native-tasks.options.js';
import { toProtocolTask } from '../../task-views/task-status.mapper.js';

/**
 * Offers a long-running tool (one with `start`) as an MCP task: lists `execution.taskSupport:
 * "optional"`, answers task-augmented calls with a CreateTaskResult whose taskId is the TaskManager
 * task id, and forwards progress as notifications/progress when the call carries a progressToken.
 * A plain call still returns the TaskInfo JSON at once (dual mode). Other tools pass through.
 *
 * The call's data goes in the task's origin (a tag of the ToolCall); the service reads it on the
 * TaskManager's `started` change, before the body can report any progress.
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
      const data: NativeTaskCall = { mode: 'plain', session: call.session, token };
      try {
        return await tool.call(args, tagged(call, data));
      } finally {
        service.callEnded(data);
      }
    },
    async callAsTask(args: unknown, call: ToolCall, task: TaskMetadata): Promise<CreateTaskResult> {
      const ttl = grantedTtl(task.ttl, service.options);
      const token = call.extra._meta?.progressToken;
      const data: NativeTaskCall = { mode: 'task', session: call.session, token, ttl };
      let started: TaskInfo;
      try {
        started = await start(args, tagged(call, data));
      } catch (err) {
        throw new TaskStartError(tool.name, err);
      }
      const entry = service.track(started.task_id, call.session, ttl);
      return { task: toProtocolTask(service.methods.snapshot(entry) ?? started, entry) };
    },
  };
}

/** `call` with the native-task data added to its tags (other tags kept). */
function tagged(call: ToolCall, data: NativeTaskCall): ToolCall {
  const tags = new Map(call.tags);
  tags.set(NATIVE_TASK_TAG, Object.freeze(data));
  return { ...call, tags };
}
