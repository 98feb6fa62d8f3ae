import { type ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import { type Clock, type Logger, type TaskInfo, type TaskManager } from '@robot-mcp-kit/core';
import { type SessionContext } from '../../tools/registered-tool.js';
import { type SessionHandle, SessionHandleTable } from '../../task-methods/session-handles.table.js';
import { sessionHandles } from '../../task-methods/task-handle.policy.js';
import { TaskMethods } from '../../task-methods/task-methods.component.js';
import { type ResolvedNativeTasksOptions } from './native-tasks.options.js';
import { progressValues } from '../../task-views/task-status.mapper.js';
import { type SurfaceTaskNotifier } from '../../surface/session-surface.port.js';
import { type ProjectedChange, type TaskProjection } from '../../task-views/task-projection.js';

/** The origin tag under which a native-task call puts its {@link NativeTaskCall}. */
export const NATIVE_TASK_TAG: unique symbol = Symbol('robot-mcp-kit.native-task');

/**
 * What a tools/call tells native tasks about the task it starts (data in the task's origin): a
 * `task` call (task-augmented, with its granted TTL) is tracked as a protocol task; either mode
 * with a progress token has the task's progress routed as notifications/progress.
 */
export type NativeTaskCall =
  | { readonly mode: 'plain'; readonly session: SessionContext; readonly token: ProgressToken }
  | {
      readonly mode: 'task';
      readonly session: SessionContext;
      readonly token: ProgressToken | undefined;
      readonly ttl: number;
    };

/** Where the progress of one task goes as notifications/progress. */
interface ProgressRoute {
  readonly session: SessionContext;
  readonly token: ProgressToken;
  /** Task-augmented calls tag their notifications with the related-task `_meta`. */
  readonly related: boolean;
  count: number;
  /** The last progress value sent: each notification must carry a larger one. */
  last: number;
}

export interface NativeTaskServiceDeps {
  readonly taskManager: TaskManager;
  /** The app's task projection: the changes the protocol tasks follow. */
  readonly projection: TaskProjection;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly options: ResolvedNativeTasksOptions;
  /** The one ownership rule (`TaskOwners.allows`): tasks/* see a task only if it allows the caller. */
  readonly allows?: (scope: string, taskId: string) => boolean;
}

/**
 * The native MCP tasks of one app, on top of its TaskManager (the source of truth): the protocol
 * index per session, the task methods over it (session-bound handles, served as SEP-1686 by each
 * session surface), progress routes, and the notifications (notifications/tasks/status to the
 * creating session on every status change, notifications/progress for calls with a progressToken).
 */
export class NativeTaskService {
  readonly taskManager: TaskManager;
  readonly options: ResolvedNativeTasksOptions;
  readonly index: SessionHandleTable;
  /** tasks/get, tasks/result, tasks/list, tasks/cancel of the sessions' tasks. */
  readonly methods: TaskMethods<SessionHandle>;
  private readonly logger: Logger;
  /** Open sessions and where their task notifications go (their session surface's). */
  private readonly sessions = new Map<SessionContext, SurfaceTaskNotifier>();
  private readonly routes = new Map<string, ProgressRoute>();
  /** The task a plain call with a progress token started, until the call answers. */
  private readonly plainCalls = new WeakMap<NativeTaskCall, string>();
  private readonly stopListening: () => void;

  constructor(deps: NativeTaskServiceDeps) {
    this.taskManager = deps.taskManager;
    this.options = deps.options;
    this.logger = deps.logger;
    this.index = new SessionHandleTable(deps.clock, deps.options.maxTasks, (entry) => this.expired(entry));
    this.methods = new TaskMethods({
      taskManager: deps.taskManager,
      handles: sessionHandles(this.index),
      pageSize: deps.options.pageSize,
      ...(deps.allows ? { allows: deps.allows } : {}),
    });
    this.stopListening = deps.projection.subscribe((change) => this.onChange(change));
  }

  /** Open sessions that can receive notifications. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** A session opened: its task notifications go to `notifier` until {@link detachSession}. */
  attachSession(notifier: SurfaceTaskNotifier, session: SessionContext): void {
    this.sessions.set(session, notifier);
  }

  /** A session closed: its protocol tasks leave the index (they keep running), its waiters are released. */
  detachSession(session: SessionContext): void {
    this.sessions.delete(session);
    this.index.dropSession(session);
    for (const [taskId, route] of this.routes) if (route.session === session) this.routes.delete(taskId);
  }

  /** Stops observing the TaskManager and forgets every protocol task (shutdown). */
  close(): void {
    this.stopListening();
    this.index.clear();
    this.routes.clear();
    this.sessions.clear();
  }

  /** Sends the progress of `taskId` to `session` as notifications/progress with `token`. */
  routeProgress(taskId: string, session: SessionContext, token: ProgressToken, related: boolean): void {
    if (!this.options.progressNotifications || !this.sessions.has(session)) return;
    this.routes.set(taskId, { session, token, related, count: 0, last: -Infinity });
  }

  /** Stops sending the progress of `taskId` (its request got its response). */
  unrouteProgress(taskId: string): void {
    this.routes.delete(taskId);
  }

  /** A plain call answered: the progress of the task it started is no longer routed. */
  callEnded(call: NativeTaskCall): void {
    const taskId = this.plainCalls.get(call);
    if (taskId === undefined) return;
    this.plainCalls.delete(call);
    this.unrouteProgress(taskId);
  }

  /**
   * Records a protocol task of `session` (idempotent). When the task already ended before it was
   * recorded, the end is recorded now (and its status notification sent).
   */
  track(taskId: string, session: SessionContext, ttl: number): SessionHandle {
    // Already tracked (a task call is tracked on `started`, then again when it answers): its end,
    // if any, was recorded by the `finished` change, so no snapshot is needed to check it.
    const known = this.index.find(taskId);
    if (known && known.session === session && this.sessions.has(session)) return known;
    const entry = this.index.ensure(taskId, session, { ttl, pollInterval: this.options.pollIntervalMs });
    if (!this.sessions.has(session)) {
      this.index.remove(entry); // the session closed while the task started: nobody can reach it
      return entry;
    }
    const current = this.taskManager.get(taskId);
    if (current && current.state !== 'running' && !entry.final) this.ended(entry, current);
    return entry;
  }

  private onChange(change: ProjectedChange): void {
    const { taskId } = change;
    if (change.kind === 'started') {
      const call = change.origin?.tags?.get(NATIVE_TASK_TAG) as NativeTaskCall | undefined;
      if (call) this.started(taskId, call);
    } else if (change.kind === 'event' && change.event?.type === 'progress') {
      const route = this.routes.get(taskId);
      if (route) this.sendProgress(taskId, route, change.event.payload);
    } else if (change.kind === 'finished') {
      this.routes.delete(taskId);
      const entry = this.index.find(taskId);
      if (entry && !entry.final) this.ended(entry, change.task);
    }
  }

  /** A task of a native-task call started (its body has not run yet): tracked and routed now. */
  private started(taskId: string, call: NativeTaskCall): void {
    if (call.mode === 'plain') {
      this.plainCalls.set(call, taskId);
      this.routeProgress(taskId, call.session, call.token, false);
      return;
    }
    this.track(taskId, call.session, call.ttl);
    if (call.token !== undefined) this.routeProgress(taskId, call.session, call.token, true);
  }

  private ended(entry: SessionHandle, info: TaskInfo): void {
    this.index.finish(entry, info);
    const { handle, taskId, ttl, pollInterval } = entry;
    this.sessions.get(entry.session)?.taskStatus({ handle, taskId, info, ttl, pollInterval });
  }

  private sendProgress(taskId: string, route: ProgressRoute, payload: TaskInfo['progress']): void {
    if (!payload) return;
    const values = progressValues(payload, route.count + 1);
    // MCP: the progress value MUST increase with each notification of a token; a report that does
    // not move forward (a robot waiting at a closed door) is not sent.
    if (!(values.progress > route.last)) return;
    route.count += 1;
    route.last = values.progress;
    this.sessions.get(route.session)?.progress({
      token: route.token,
      ...values,
      ...(route.related ? { relatedTaskId: taskId } : {}),
    });
  }

  /**
   * A finished task's TTL ran out: it leaves `tasks/*` only. The TaskManager keeps it for `get_task`
   * and `list_tasks` until its own retention evicts it, since the app may still reconcile it there.
   */
  private expired(entry: SessionHandle): void {
    this.logger.debug('native tasks: task expired', { task_id: entry.taskId, ttl: entry.ttl });
  }
}
