import { type TaskManager } from '@robot-mcp-kit/core';
import { type AppExtension } from '../../runtime/robot-mcp-app.js';
import { type Feature, type FeatureContext } from '../../runtime/feature.types.js';
import { NativeTaskService } from './native-task.service.js';
import { type NativeTasksOptions, resolveNativeTasksOptions } from './native-tasks.options.js';
import { installTaskRequestHandlers } from './task-requests.handlers.js';
import { withTaskSupport } from './task-tool.wrapper.js';

declare module '../../runtime/bootstrap.js' {
  // Merged into BootstrapOptions so `bootstrap(Server, { nativeTasks: {...} })` type-checks.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface BootstrapOptions<T extends object = object> {
    /** Native MCP tasks (SEP-1686): TTLs, poll interval, page size, progress notifications. */
    nativeTasks?: NativeTasksOptions;
  }
}

/**
 * Native MCP tasks (spec 2025-11-25, SEP-1686) over the TaskManager: long-running tools list
 * `execution.taskSupport: "optional"`, the server advertises the tasks capability, a
 * task-augmented tools/call answers a CreateTaskResult, and every session gets tasks/get,
 * tasks/result, tasks/list, tasks/cancel and notifications/tasks/status for the tasks it created.
 * Calls with a progressToken also get notifications/progress. One task, one id, one state machine:
 * get_task and the push events see the same task.
 *
 * `options` override `bootstrap(..., { nativeTasks })`.
 */
export function createNativeTasksFeature(options?: NativeTasksOptions): Feature {
  const services = new WeakMap<TaskManager, NativeTaskService>();
  const serviceFor = (ctx: FeatureContext): NativeTaskService => {
    let service = services.get(ctx.taskManager);
    if (!service) {
      service = new NativeTaskService({
        taskManager: ctx.taskManager,
        clock: ctx.clock,
        logger: ctx.logger.child({ component: 'native-tasks' }),
        options: resolveNativeTasksOptions(ctx.options.nativeTasks, options),
      });
      services.set(ctx.taskManager, service);
    }
    return service;
  };
  return {
    name: 'native-tasks',
    filterTools(tools, ctx) {
      const service = serviceFor(ctx);
      return tools.map((tool) => withTaskSupport(tool, service));
    },
    extension(ctx): AppExtension {
      const service = serviceFor(ctx);
      return {
        name: 'native-tasks',
        installSession(mcp, session) {
          if (!service.hasTaskTools) return;
          installTaskRequestHandlers(mcp.server, session, service);
          service.attachSession(mcp, session);
        },
        sessionClosed(session) {
          service.detachSession(session);
        },
        close() {
          service.close();
        },
      };
    },
  };
}

/** The built-in native tasks feature, configured by `bootstrap(..., { nativeTasks })`. */
export const nativeTasksFeature: Feature = createNativeTasksFeature();
