import { type Feature } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { PrincipalHandleTable } from '../../task-methods/principal-handles.table.js';
import { principalHandles } from '../../task-methods/task-handle.policy.js';
import { TaskMethods } from '../../task-methods/task-methods.component.js';
import { NativeTaskService } from './native-task.service.js';
import { type NativeTasksOptions, resolveNativeTasksOptions } from './native-tasks.options.js';
import { withTaskSupport } from './task-tool.wrapper.js';

/**
 * Native MCP tasks over the TaskManager, on both generations through the session surface: one
 * task-method component, two handle policies. One task, one id, one state machine: get_task and
 * the push events see the same task. `bootstrap(..., { nativeTasks })` configures it.
 *
 * - A surface with a session (2025-11-25, SEP-1686): long-running tools list
 *   `execution.taskSupport: "optional"`, the server advertises the tasks capability, a
 *   task-augmented tools/call answers a CreateTaskResult, and the session gets tasks/get,
 *   tasks/result, tasks/list, tasks/cancel and notifications/tasks/status for the tasks it created
 *   (handles bound to the session); calls with a progressToken also get notifications/progress.
 * - A surface without one (2026-07-28, SEP-2663): the tasks extension, tasks/get, tasks/update and
 *   tasks/cancel, and a task answered to a tools/call that declares the extension; its handle is a
 *   random UUID bound to the caller's principal and, with a task store, found by every replica.
 */
export function nativeTasksFeature(options?: NativeTasksOptions): Feature {
  return defineFeature({
    name: 'native-tasks',
    needs: ['taskManager', 'projection', 'clock', 'logger', 'owners', 'stored'],
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
      let sessionless: TaskMethods | undefined; // made by the first 2026-07-28 surface
      const sessionlessMethods = (): TaskMethods =>
        (sessionless ??= new TaskMethods({
          taskManager: ctx.taskManager,
          handles: principalHandles(new PrincipalHandleTable(ctx.clock)),
          ...(ctx.stored ? { stored: ctx.stored } : {}),
        }));
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
            if (!session) {
              surface.serveTaskMethods(sessionlessMethods());
              return;
            }
            if (!hasTaskTools || !taskNotifier) return;
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
