import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Clock, type Logger, type TaskInfo } from '@robot-mcp-kit/core';
import { type TrackedTask } from '../receiver/receiver.types.js';

/** What the reconciler needs of a connection: the official SDK `Client` (already connected). */
export type ToolCaller = Pick<Client, 'callTool'>;

/** Options of {@link Reconciler}. */
export interface ReconcilerOptions {
  /** A connected MCP client per capability server, by server name (the `server` of its events). */
  servers: Readonly<Record<string, ToolCaller>> | ReadonlyMap<string, ToolCaller>;
  logger?: Logger;
  /** For the timestamps of synthetic `SERVER_RESTARTED` entries (default: the system clock). */
  clock?: Clock;
  /** Timeout of each tool call in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Tool calls in flight at once per server (default 4). */
  concurrency?: number;
  /**
   * Tasks per `list_tasks` page (its `limit`, default 100): the running tasks are read page by page
   * through `next_cursor`, each page a call with its own timeout.
   */
  pageSize?: number;
}

/** Options of {@link Reconciler.reconcile}. */
export interface ReconcileOptions {
  /** The tasks the app still follows; `get_task` is called for each (e.g. `receiver.openTasks()`). */
  tracked?: Iterable<TrackedTask>;
}

/** A server that could not be asked, or whose answer could not be used. Never thrown: reported. */
export interface ReconcileError {
  readonly server: string;
  readonly tool: 'list_tasks' | 'get_task';
  /** Set for a `get_task` call. */
  readonly task_id?: string;
  /** What went wrong, e.g. `timeout after 10000 ms`, `tool error: ...`, `invalid TaskInfo: ...`. */
  readonly error: string;
}

/**
 * The result of {@link Reconciler.reconcile}: poll is the truth (spec §1).
 *
 * - `running`: every task the servers report running (`list_tasks {states: ["running"]}`),
 *   tracked or not: tasks the app did not know about (it restarted) show up here.
 * - `tasks`: the truth for each tracked task that could be established, by `task_id`: the
 *   server's TaskInfo, or for a task the server no longer knows a synthetic `failed` TaskInfo
 *   with failure `SERVER_RESTARTED` (recoverable, suggestion `restart_task`).
 * - `lost`: those synthetic entries (also in `tasks`).
 * - `unresolved`: tracked tasks whose truth is unknown (server error, no client): try again later.
 * - `errors`: one entry per failed call.
 */
export interface ReconcileReport {
  readonly running: TaskInfo[];
  readonly tasks: Map<string, TaskInfo>;
  readonly lost: TaskInfo[];
  readonly unresolved: TrackedTask[];
  readonly errors: ReconcileError[];
}
