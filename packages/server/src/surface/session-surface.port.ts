/*
 * The kit-owned session surface (issue 30): what a feature installs into once, whatever MCP
 * generation serves the session. One thin adapter per SDK generation maps it to the wire
 * (`SdkV1SessionSurface`: 2025-11-25 on the v1 SDK; `SdkV2SessionSurface`: 2026-07-28 on the v2
 * SDK), through the SDKs' public extension points only. It carries resources and their change
 * notifications, and the task methods (SEP-1686 on 2025-11-25, SEP-2663 on 2026-07-28); tools join
 * it the same way.
 */
import { type TaskInfo } from '@robot-mcp-kit/core';
import { type SessionContext } from '../tools/registered-tool.js';

/** Who asks: the principal the one ownership rule (`TaskOwners.allows`) scopes a request to. */
export interface SurfaceCaller {
  readonly scope: string;
  /** The 2025-11-25 session the request came in on (2026-07-28 has no sessions). */
  readonly session?: SessionContext;
  /** The request's authenticated principal, if any (its `scope` is `scopeOf` it). */
  readonly principal?: string;
}

/** One resources/list entry. */
export type SurfaceResource = {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
};

/** One resources/templates/list entry. */
export type SurfaceResourceTemplate = {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
};

/** A resources/read answer (a type, not an interface: both SDKs' result types are open records). */
export type SurfaceResourceContents = { contents: { uri: string; mimeType?: string; text: string }[] };

/** A set of resources a feature serves; the adapter answers each request with the caller's scope. */
export interface ResourceSource {
  list(caller: SurfaceCaller): Promise<SurfaceResource[]>;
  templates(): SurfaceResourceTemplate[];
  /** What `uri` reads, or undefined: the adapter answers its generation's not-found error. */
  read(uri: string, caller: SurfaceCaller): Promise<SurfaceResourceContents | undefined>;
  /** The message of that not-found error. */
  notFoundMessage(uri: string): string;
  /**
   * Whether `caller` may follow `uri` (resources/subscribe on generations that have it; without
   * this method the resources are not subscribable and `subscribe` is not advertised).
   */
  subscribable?(uri: string, caller: SurfaceCaller): Promise<boolean>;
}

/** One task as a task method answers it, whatever the generation's wire shape. */
export interface TaskView {
  /** The wire `taskId`: the kit's task id (2025-11-25) or a random UUID (2026-07-28). */
  readonly handle: string;
  /** The kit's task id (get_task, cancel_task, `tasks://`, the events). */
  readonly taskId: string;
  /** Its current snapshot. */
  readonly info: TaskInfo;
  /** Ms the handle is kept (2025-11-25: after the task's end; 2026-07-28: after its creation). */
  readonly ttl: number;
  /** The poll interval suggested to clients, in ms. */
  readonly pollInterval: number;
}

/** A page of a caller's tasks. */
export interface TaskViewPage {
  readonly views: readonly TaskView[];
  readonly nextCursor?: string;
}

/**
 * What a cancel did: `cancelled` when the task is now cancelled; else `view` is the task as it is
 * (it had ended already), or undefined when it is gone.
 */
export interface TaskCancelOutcome {
  readonly cancelled: boolean;
  readonly view: TaskView | undefined;
}

/**
 * The task methods a feature serves (the one component: `task-methods/task-methods.component.ts`);
 * every answer is scoped to the caller, and undefined means "no such task for this caller".
 */
export interface TaskMethodSource {
  get(handle: string, caller: SurfaceCaller): Promise<TaskView | undefined>;
  /** Cancels a running task (here, or on the replica that runs it). */
  cancel(handle: string, caller: SurfaceCaller): Promise<TaskCancelOutcome | undefined>;
  /** The task once it ended; rejects when `signal` aborts first. */
  ended(handle: string, caller: SurfaceCaller, signal: AbortSignal): Promise<TaskView | undefined>;
  /** One page of the caller's tasks in creation order; throws on a cursor it did not hand out. */
  list(caller: SurfaceCaller, cursor: string | undefined): TaskViewPage;
  /**
   * The handle of a task a task-augmented tools/call just started, on a surface without a session
   * (2026-07-28: the call answers it). A session's handles are made as its tasks start.
   */
  create?(info: TaskInfo, caller: SurfaceCaller): Promise<TaskView>;
}

/**
 * Where change notifications go: one 2025 session, one 2026 stdio connection, or the 2026 HTTP
 * leg's `subscriptions/listen` streams. Sending never throws into the feature.
 */
export interface SurfaceNotifier {
  /**
   * Whether a client of this target follows `uri`: a 2025 session's resources/subscribe; always on
   * 2026-07-28, where the v2 SDK filters per `subscriptions/listen` stream.
   */
  follows(uri: string): boolean;
  /** `notifications/resources/updated` of `uri`. */
  resourceUpdated(uri: string): void;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged(): void;
}

/** What one notifications/progress carries (the token is the request's `progressToken`). */
export interface SurfaceProgress {
  readonly token: string | number;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
  /** The task a task-augmented request's progress belongs to (its related-task `_meta`). */
  readonly relatedTaskId?: string;
}

/**
 * The task notifications of one 2025-11-25 session (SEP-1686): notifications/tasks/status and
 * notifications/progress. Sending never throws into the feature.
 */
export interface SurfaceTaskNotifier {
  /** notifications/tasks/status of the task as `view` shows it. */
  taskStatus(view: TaskView): void;
  /** notifications/progress. */
  progress(progress: SurfaceProgress): void;
}

/** One session as a feature sees it (2026-07-28: one request, or one stdio connection). */
export interface SessionSurface {
  /** Serves `source`'s resources (list, templates, read; subscribe where the generation has it). */
  serveResources(source: ResourceSource): void;
  /**
   * Serves `source`'s task methods as the generation's task protocol: SEP-1686 (tasks/get,
   * tasks/result, tasks/list, tasks/cancel) on 2025-11-25, SEP-2663 (tasks/get, tasks/update,
   * tasks/cancel) on 2026-07-28.
   */
  serveTaskMethods(source: TaskMethodSource): void;
  /** The 2025-11-25 session this surface serves; undefined on 2026-07-28, which has no sessions. */
  readonly session?: SessionContext;
  /**
   * This session's own notification target, or undefined when it has none (a 2026-07-28 HTTP
   * request: the app's `subscriptions/listen` streams carry the changes, see
   * {@link SurfaceFeature.publishTo}).
   */
  readonly notifier?: SurfaceNotifier;
  /**
   * The session's task notifications (SEP-1686); undefined on 2026-07-28, whose tasks extension
   * has none (a client polls tasks/get).
   */
  readonly taskNotifier?: SurfaceTaskNotifier;
  /** Calls `listener` once when the session ends (never, for a surface without a notifier). */
  onClosed(listener: () => void): void;
}

/** What a feature contributes to every session surface of either generation. */
export interface SurfaceFeature {
  /** Installs the feature on one session surface, before the session connects. */
  installSurface?(surface: SessionSurface): void;
  /**
   * Sends the feature's notifications to an app-wide target not bound to one session (the 2026
   * HTTP leg's `subscriptions/listen` bus) until the returned function is called.
   */
  publishTo?(notifier: SurfaceNotifier): () => void;
}
