import { randomUUID } from 'node:crypto';
import { type Clock } from '@robot-mcp-kit/core';
import { type TaskHandle } from './task-handle.policy.js';

/** One task handed to an MCP 2026-07-28 client through the tasks extension (SEP-2663). */
export interface PrincipalHandle extends TaskHandle {
  /** The wire `taskId`: a random UUID, never the kit's short task id. */
  readonly handle: string;
  /** The kit's task id (get_task, cancel_task, events, SEP-1686 all use it). */
  readonly taskId: string;
  /** The principal of the request that created it (undefined without auth). */
  readonly principal: string | undefined;
  readonly createdAt: number;
  /** Ms the handle is kept after its creation. */
  readonly ttl: number;
  readonly pollInterval: number;
}

/** Entries kept at most (oldest forgotten first). */
export const MAX_PRINCIPAL_HANDLES = 10_000;

/**
 * The SEP-2663 task handles of one server (the principal-bound handle table of the task methods). The kit's task ids are short and sequential-looking
 * (`rove-3fa2c1`), so 2026 clients get a high-entropy handle instead; a handle is bound to the
 * principal that created it (a request of another principal, or an unauthenticated one for an
 * authenticated task, does not find it) and forgotten after its TTL.
 */
export class PrincipalHandleTable {
  private readonly entries = new Map<string, PrincipalHandle>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = MAX_PRINCIPAL_HANDLES,
  ) {}

  add(taskId: string, principal: string | undefined, ttlMs: number, pollIntervalMs: number): PrincipalHandle {
    const entry = {
      handle: randomUUID(),
      taskId,
      principal,
      createdAt: this.clock.now(),
      ttl: ttlMs,
      pollInterval: pollIntervalMs,
    };
    this.entries.set(entry.handle, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return entry;
  }

  /** The entry of `handle` if it exists, is not expired and belongs to `principal`. */
  get(handle: string, principal: string | undefined): PrincipalHandle | undefined {
    const entry = this.entries.get(handle);
    if (!entry) return undefined;
    if (this.clock.now() - entry.createdAt > entry.ttl) {
      this.entries.delete(handle);
      return undefined;
    }
    return entry.principal === principal ? entry : undefined;
  }

  get size(): number {
    return this.entries.size;
  }
}
