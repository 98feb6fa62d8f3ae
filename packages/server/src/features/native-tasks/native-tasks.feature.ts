import { type Feature } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { NativeTaskService } from './native-task.service.js';
import { type NativeTasksOptions, resolveNativeTasksOptions } from './native-tasks.options.js';
import { withTaskSupport } from './task-tool.wrapper.js';

/**
 * Native MCP tasks (spec 2025-11-25, SEP-1686) over the TaskManager: long-running tools list
 * `execution.taskSupport: "optional"`, the server advertises the tasks capability, a
 * task-augmented tools/call answers a CreateTaskResult, and every session gets tasks/get,
 * tasks/result, tasks/list, tasks/cancel and notifications/tasks/status for the tasks it created.
 * Calls with a progressToken also get notifications/progress. One task, one id, one state machine:
 * get_task and the push events see the same task. `bootstrap(..., { nativeTasks })` configures it.
 * Installed through the session surface only: the tasks/* methods and the task notifications of
 * each 2025-11-25 session (a 2026-07-28 surface has no session; its leg serves SEP-2663).
 */
export function nativeTasksFeature(options?: NativeTasksOptions): Feature {
  return defineFeature({
    name: 'native-tasks',
    needs: ['taskManager', 'projection', 'clock', 'logger', 'owners'],
    setup(ctx) {
      const service = new NativeTaskService({
        taskManager: ctx.taskManager,
        projection: ctx.projection,
        clock: ctx.clock,
        logger: ctx.logger.child({ component: 'native-tasks' }),
        options: resolveNativeTasksOptions(options),
        allows: (scope, taskId) => ctx.owners.allows(scope, taskId),
      });
      let hasTaskTools = false;
      return {
        filterTools(tools) {
          const offered = tools.map((tool) => withTaskSupport(tool, service));
          hasTaskTools = offered.some((tool) => tool.execution?.taskSupport === 'optional');
          return offered;
        },
        extension: {
          name: 'native-tasks',
          installSurface(surface) {
            const { session, taskNotifier } = surface;
            if (!hasTaskTools || !session || !taskNotifier) return; // 2026-07-28: the leg's own SEP-2663
            surface.serveTaskMethods(service.methods);
            service.attachSession(taskNotifier, session);
            surface.onClosed(() => service.detachSession(session));
          },
          close() {
            service.close();
          },
        },
      };
    },
  });
}

/** The bootstrap option of the native tasks feature. */
export interface NativeTasksFeatureOptions {
  /** Native MCP tasks (SEP-1686): TTLs, poll interval, page size, progress notifications. */
  nativeTasks?: NativeTasksOptions;
}

/** {@link nativeTasksFeature} configured from the bootstrap options (`nativeTasks`). */
export function nativeTasksFeatureFrom(options: NativeTasksFeatureOptions = {}): Feature {
  return nativeTasksFeature(options.nativeTasks);
}
