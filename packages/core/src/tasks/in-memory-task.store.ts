import { randomUUID } from 'node:crypto';
import { ConfigError } from '../errors/kit.error.js';
import {
  type CancelRequestListener,
  type LostTaskListener,
  type CancelTarget,
  type StoredTask,
  type TaskStore,
} from './task-store.port.js';

/** Default number of finished tasks kept by an {@link InMemoryTaskStore} (oldest dropped first). */
export const DEFAULT_IN_MEMORY_FINISHED_KEPT = 1000;

/**
 * The in-memory {@link TaskStore}: one process, no leases (a process cannot outlive itself), so
 * no task is ever reported lost. Cancel requests reach the listeners of this same store. Finished
 * tasks are kept up to `maxFinished` (memory stays bounded), running ones until they finish.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly replicaId: string;
  private readonly tasks = new Map<string, StoredTask>();
  private readonly finished = new Set<string>();
  private readonly cancelListeners = new Set<CancelRequestListener>();
  private readonly aliases = new Map<string, { taskId: string; expiresAt: number }>();
  private readonly maxFinished: number;

  constructor(options: { replicaId?: string; maxFinished?: number } = {}) {
    this.replicaId = options.replicaId ?? randomUUID();
    const max = options.maxFinished ?? DEFAULT_IN_MEMORY_FINISHED_KEPT;
    if (!Number.isInteger(max) || max < 0) {
      throw new ConfigError('maxFinished', `must be a whole number >= 0, got ${String(options.maxFinished)}`);
    }
    this.maxFinished = max;
  }

  put(entry: StoredTask): Promise<void> {
    const id = entry.task.task_id;
    this.tasks.set(id, structuredClone(entry));
    if (entry.task.state !== 'running') {
      this.finished.delete(id);
      this.finished.add(id);
      for (const oldest of this.finished) {
        if (this.finished.size <= this.maxFinished) break;
        this.finished.delete(oldest);
        this.tasks.delete(oldest);
      }
    }
    return Promise.resolve();
  }

  get(scope: string, taskId: string): Promise<StoredTask | undefined> {
    const entry = this.tasks.get(taskId);
    return Promise.resolve(entry && entry.scope === scope ? structuredClone(entry) : undefined);
  }

  list(scope: string): Promise<StoredTask[]> {
    const all = [...this.tasks.values()].filter((e) => e.scope === scope).map((e) => structuredClone(e));
    all.sort((a, b) => Date.parse(a.task.created_at) - Date.parse(b.task.created_at));
    return Promise.resolve(all);
  }

  putAlias(alias: string, taskId: string, ttlMs: number): Promise<void> {
    const now = Date.now();
    for (const [key, value] of this.aliases) if (value.expiresAt <= now) this.aliases.delete(key);
    this.aliases.set(alias, { taskId, expiresAt: now + ttlMs });
    // as bounded as the tasks: at most one alias per kept task, oldest dropped first
    for (const oldest of this.aliases.keys()) {
      if (this.aliases.size <= this.tasks.size + 1) break;
      this.aliases.delete(oldest);
    }
    return Promise.resolve();
  }

  getAlias(alias: string): Promise<string | undefined> {
    const found = this.aliases.get(alias);
    return Promise.resolve(found && found.expiresAt > Date.now() ? found.taskId : undefined);
  }

  requestCancel(entry: CancelTarget): Promise<void> {
    for (const listener of this.cancelListeners) listener(entry.task.task_id);
    return Promise.resolve();
  }

  onCancelRequest(listener: CancelRequestListener): () => void {
    this.cancelListeners.add(listener);
    return () => void this.cancelListeners.delete(listener);
  }

  onLostTask(_listener: LostTaskListener): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    this.cancelListeners.clear();
    return Promise.resolve();
  }
}
