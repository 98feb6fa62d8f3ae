import { parseTaskInfo, type TaskInfo, type TaskManager } from '@robot-mcp-kit/core';
import { type StoredTask } from '@robot-mcp-kit/core/store';
import { type TaskStoreBridge } from '../store/task-store.bridge.js';
import {
  type SurfaceCaller,
  type TaskCancelOutcome,
  type TaskMethodSource,
  type TaskView,
  type TaskViewPage,
} from '../surface/session-surface.port.js';
import { linkActiveSpanToTask } from '../telemetry/task-trace.link.js';
import { type TaskHandle, type TaskHandlePolicy } from './task-handle.policy.js';

/** How long a cancel of another replica's task waits for the owner to confirm. */
export const REMOTE_CANCEL_WAIT_MS = 2000;
/** Tasks per page when the options name none. */
const DEFAULT_PAGE_SIZE = 50;

/** What the task methods of one generation are made of. */
export interface TaskMethodsParts<H extends TaskHandle> {
  readonly taskManager: TaskManager;
  /** What a wire handle is: `sessionHandles` (SEP-1686) or `principalHandles` (SEP-2663). */
  readonly handles: TaskHandlePolicy<H>;
  /** The one ownership rule where it applies (`TaskOwners.allows`); without it, the handle's binding decides. */
  readonly allows?: (scope: string, taskId: string) => boolean;
  /** The shared task store (`RMK_STORE`): handles of other replicas, for a policy that shares them. */
  readonly stored?: TaskStoreBridge;
  /** Tasks per listed page. */
  readonly pageSize?: number;
}

/** A task found by its handle: here (`stored` undefined) or on another replica through the store. */
interface FoundTask<H> {
  readonly entry: H;
  readonly info: TaskInfo;
  readonly stored?: StoredTask;
}

/**
 * The task methods of one MCP generation, over the kit's TaskManager (one task, the same state as
 * get_task, cancel_task, `tasks://` and the events): the one place that decides which task a wire
 * handle names for a caller (an entry that exists, has not expired, is bound to the caller, and
 * that the ownership rule allows), what its snapshot is (live, else the kept final one, else the
 * shared store's for another replica's handle), how it is cancelled (here, or through the store)
 * and awaited, and how a caller's tasks are paged. The session surfaces map it to the wire
 * (`serveTaskMethods`): SEP-1686 on 2025-11-25, SEP-2663 on 2026-07-28.
 */
export class TaskMethods<H extends TaskHandle = TaskHandle> implements TaskMethodSource {
  private readonly pageSize: number;

  constructor(private readonly parts: TaskMethodsParts<H>) {
    this.pageSize = parts.pageSize ?? DEFAULT_PAGE_SIZE;
  }

  /**
   * Hands `caller` a handle of the task `info` started, readable before it is returned (with a
   * policy that shares handles and a task store: on every replica).
   */
  async create(info: TaskInfo, caller: SurfaceCaller): Promise<TaskView> {
    const { handles, stored, taskManager } = this.parts;
    if (!handles.create) throw new Error('this generation creates its task handles as the task starts');
    const entry = handles.create(info.task_id, caller);
    if (handles.shared) await stored?.putAlias(entry.handle, entry.taskId, entry.ttl);
    return viewOf(entry, taskManager.get(info.task_id) ?? info);
  }

  async get(handle: string, caller: SurfaceCaller): Promise<TaskView | undefined> {
    const found = await this.find(handle, caller);
    return found && viewOf(found.entry, found.info);
  }

  /** Cancels a running task: here through the TaskManager, else through the store (bounded wait). */
  async cancel(handle: string, caller: SurfaceCaller): Promise<TaskCancelOutcome | undefined> {
    const found = await this.find(handle, caller);
    if (!found) return undefined;
    const { entry, info, stored } = found;
    if (info.state !== 'running') return { cancelled: false, view: viewOf(entry, info) };
    const after = stored
      ? await this.cancelElsewhere(stored)
      : ((await this.parts.taskManager.cancel(entry.taskId)) ?? this.snapshot(entry));
    const view = after && viewOf(entry, after);
    return { cancelled: after?.state === 'cancelled', view };
  }

  /** The task once it ended (a policy without waiters cannot await: it throws). */
  async ended(handle: string, caller: SurfaceCaller, signal: AbortSignal): Promise<TaskView | undefined> {
    const { waitForEnd } = this.parts.handles;
    let found = await this.find(handle, caller);
    while (found?.info.state === 'running') {
      if (!waitForEnd || found.stored) throw new Error('this generation cannot await the end of a task');
      await waitForEnd(found.entry, signal);
      found = await this.find(handle, caller);
    }
    return found && viewOf(found.entry, found.info);
  }

  list(caller: SurfaceCaller, cursor: string | undefined): TaskViewPage {
    const page = this.parts.handles.page?.(caller, cursor, this.pageSize);
    if (!page) return { views: [] };
    const views = page.entries.flatMap((entry) => {
      const info = this.allowed(caller, entry.taskId) ? this.snapshot(entry) : undefined;
      return info ? [viewOf(entry, info)] : [];
    });
    return page.nextCursor === undefined ? { views } : { views, nextCursor: page.nextCursor };
  }

  /** The current snapshot of a handle's task: live from the TaskManager, else its kept final one. */
  snapshot(entry: TaskHandle): TaskInfo | undefined {
    return this.parts.taskManager.get(entry.taskId) ?? entry.final;
  }

  private async find(handle: string, caller: SurfaceCaller): Promise<FoundTask<H> | undefined> {
    const entry = this.parts.handles.find(handle, caller);
    const info = entry && this.snapshot(entry);
    const here = entry && info && this.allowed(caller, entry.taskId) ? { entry, info } : undefined;
    const found = here ?? (await this.findElsewhere(handle, caller));
    if (found) linkActiveSpanToTask(this.parts.taskManager, found.entry.taskId);
    return found;
  }

  /** A handle created on another replica, through the shared task store (scoped to the caller). */
  private async findElsewhere(handle: string, caller: SurfaceCaller): Promise<FoundTask<H> | undefined> {
    const { handles, stored } = this.parts;
    if (!handles.shared || !stored?.active) return undefined;
    const record = await stored.getByAlias(caller.scope, handle);
    if (!record) return undefined;
    const info = storedInfo(record);
    const entry = handles.shared(handle, record.task.task_id, caller, info.created_at.getTime());
    return { entry, info, stored: record };
  }

  private async cancelElsewhere(record: StoredTask): Promise<TaskInfo | undefined> {
    const after = await this.parts.stored?.cancelRemote(record, REMOTE_CANCEL_WAIT_MS);
    return after && storedInfo(after);
  }

  private allowed(caller: SurfaceCaller, taskId: string): boolean {
    return this.parts.allows?.(caller.scope, taskId) ?? true;
  }
}

function viewOf(entry: TaskHandle, info: TaskInfo): TaskView {
  const { handle, taskId, ttl, pollInterval } = entry;
  return { handle, taskId, info, ttl, pollInterval };
}

/** The TaskInfo of a stored record (a value of any realm). */
function storedInfo(record: StoredTask): TaskInfo {
  return parseTaskInfo(JSON.stringify(record.task));
}
