import { type TaskInfo } from '@robot-mcp-kit/core';
import { type SurfaceCaller } from '../surface/session-surface.port.js';
import { type PrincipalHandle, type PrincipalHandleTable } from './principal-handles.table.js';
import { type SessionHandle, type SessionHandleTable } from './session-handles.table.js';

/** One entry of a handle table: the wire handle of a kit task and how long it is kept. */
export interface TaskHandle {
  /** The wire `taskId`. */
  readonly handle: string;
  /** The kit's task id. */
  readonly taskId: string;
  readonly ttl: number;
  readonly pollInterval: number;
  /** The terminal snapshot, once kept (a table that keeps none leaves it undefined). */
  readonly final?: TaskInfo;
}

/**
 * What a wire handle is, per MCP generation: the one difference between the SEP-1686 and the
 * SEP-2663 task methods. 2025-11-25 hands out the kit task id itself, bound to the creating
 * session ({@link sessionHandles}); 2026-07-28 a random UUID bound to the principal, recorded as a
 * store alias so that every replica answers for it ({@link principalHandles}).
 */
export interface TaskHandlePolicy<H extends TaskHandle = TaskHandle> {
  /** The entry of `handle` if it exists, has not expired and is bound to `caller`. */
  find(handle: string, caller: SurfaceCaller): H | undefined;
  /** A new handle of `taskId` for `caller`; undefined when this generation creates its own elsewhere. */
  create?(taskId: string, caller: SurfaceCaller): H;
  /**
   * Handles recorded as task store aliases: the handle of a task another replica created, for
   * `caller`, as this replica answers it. Undefined when handles are this replica's only.
   */
  shared?(handle: string, taskId: string, caller: SurfaceCaller, createdAt: number): H;
  /** Resolves once the task of `entry` ended or its handle was dropped; rejects if `signal` aborts. */
  waitForEnd?(entry: H, signal: AbortSignal): Promise<void>;
  /** One page of the caller's handles in creation order. */
  page?(caller: SurfaceCaller, cursor: string | undefined, size: number): HandlePage<H>;
}

/** A page of one caller's handles. */
export interface HandlePage<H> {
  readonly entries: readonly H[];
  readonly nextCursor?: string;
}

/** SEP-1686: the handle is the kit task id, bound to the session that created it. */
export function sessionHandles(index: SessionHandleTable): TaskHandlePolicy<SessionHandle> {
  return {
    find: (handle, caller) => (caller.session ? index.get(handle, caller.session) : undefined),
    waitForEnd: (entry, signal) => index.waitForEnd(entry, signal),
    page: (caller, cursor, size) =>
      caller.session ? index.page(caller.session, cursor, size) : { entries: [] },
  };
}

/** TTL and poll interval of the SEP-2663 handles. */
export interface PrincipalHandleRetention {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
}

export const PRINCIPAL_HANDLE_DEFAULTS: PrincipalHandleRetention = Object.freeze({
  ttlMs: 60 * 60 * 1000,
  pollIntervalMs: 1000,
});

/** SEP-2663: the handle is a random UUID bound to the creating principal, shared through the store. */
export function principalHandles(
  index: PrincipalHandleTable,
  retention: PrincipalHandleRetention = PRINCIPAL_HANDLE_DEFAULTS,
): TaskHandlePolicy<PrincipalHandle> {
  const { ttlMs, pollIntervalMs } = retention;
  return {
    find: (handle, caller) => index.get(handle, caller.principal),
    create: (taskId, caller) => index.add(taskId, caller.principal, ttlMs, pollIntervalMs),
    shared: (handle, taskId, caller, createdAt) => ({
      handle,
      taskId,
      principal: caller.principal,
      createdAt,
      ttl: ttlMs,
      pollInterval: pollIntervalMs,
    }),
  };
}
