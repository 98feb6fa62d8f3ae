import {
  type Clock,
  ConfigError,
  ContractValidationError,
  type JsonObject,
  type Logger,
  parseTaskInfo,
  silentLogger,
  systemClock,
  TaskFailure,
  TaskInfo,
} from '@robot-mcp-kit/core';
import { type TrackedTask } from '../receiver/receiver.types.js';
import {
  type ReconcileError,
  type ReconcileOptions,
  type ReconcileReport,
  type ReconcilerOptions,
  type ToolCaller,
} from './reconcile.types.js';
import { ReconcileToolError, toolResultJson } from './tool-result.parser.js';

/** The most list_tasks pages one reconciliation reads per server. */
export const MAX_LIST_PAGES = 1000;

/** The failure code of a tracked task its server no longer knows (spec §4.2, app side). */
export const SERVER_RESTARTED = 'SERVER_RESTARTED';

/**
 * A synthetic `failed` TaskInfo for a task its server answers `{"error": "not_found"}` to: the
 * server restarted and lost it. `created_at`/`updated_at` are `nowMs` (the real ones are lost).
 */
export function serverRestartedTask(task: TrackedTask, nowMs: number): TaskInfo {
  const now = new Date(nowMs);
  return TaskInfo.create({
    task_id: task.task_id,
    server: task.server,
    tool: task.tool ?? '',
    state: 'failed',
    created_at: now,
    updated_at: now,
    failure: TaskFailure.create({
      error_code: SERVER_RESTARTED,
      message:
        `The ${task.server} server no longer knows task ${task.task_id}: it restarted and lost its ` +
        'tasks, so the outcome is unknown. Start the task again if it is still needed.',
      recoverable: true,
      suggestions: ['restart_task'],
    }),
  });
}

/**
 * Polls the capability servers for the truth after an app restart or a gap (spec §1: push is
 * the optimization, poll is the truth): `list_tasks {states: ["running"]}` on every server and
 * `get_task` for each tracked task. Failures are reported, never thrown.
 */
export class Reconciler {
  private readonly servers: ReadonlyMap<string, ToolCaller>;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly pageSize: number;

  constructor(options: ReconcilerOptions) {
    const servers = options?.servers;
    if (servers === null || typeof servers !== 'object') {
      throw new ConfigError('servers', 'must map each server name to its connected MCP Client');
    }
    this.servers = new Map(servers instanceof Map ? servers : Object.entries(servers));
    for (const [name, client] of this.servers) {
      if (typeof client?.callTool !== 'function') {
        throw new ConfigError(`servers.${name}`, 'must be a connected MCP Client (with callTool)');
      }
    }
    this.logger = (options.logger ?? silentLogger).child({ component: 'reconciler' });
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = positiveInt('timeoutMs', options.timeoutMs, 10_000);
    this.concurrency = positiveInt('concurrency', options.concurrency, 4);
    this.pageSize = positiveInt('pageSize', options.pageSize, 100);
  }

  async reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    const report: ReconcileReport = { running: [], tasks: new Map(), lost: [], unresolved: [], errors: [] };
    const byServer = new Map<string, Map<string, TrackedTask>>();
    for (const task of options.tracked ?? []) {
      if (!this.servers.has(task.server)) {
        report.unresolved.push(task);
        report.errors.push({
          server: task.server,
          tool: 'get_task',
          task_id: task.task_id,
          error: `no MCP client for server "${task.server}"; add it to new Reconciler({ servers })`,
        });
        continue;
      }
      const tasks = byServer.get(task.server) ?? new Map<string, TrackedTask>();
      tasks.set(task.task_id, task);
      byServer.set(task.server, tasks);
    }
    await Promise.all(
      [...this.servers].map(([name, client]) =>
        this.reconcileServer(name, client, [...(byServer.get(name)?.values() ?? [])], report),
      ),
    );
    this.logger.info('reconciled', {
      running: report.running.length,
      tracked: report.tasks.size,
      lost: report.lost.length,
      errors: report.errors.length,
    });
    return report;
  }

  private async reconcileServer(
    server: string,
    client: ToolCaller,
    tracked: TrackedTask[],
    report: ReconcileReport,
  ): Promise<void> {
    const jobs: (() => Promise<void>)[] = [
      () => this.listRunning(server, client, report),
      ...tracked.map((task) => () => this.getTask(server, client, task, report)),
    ];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, jobs.length) }, worker));
  }

  /**
   * `list_tasks {states: ["running"], limit}` page by page, following `next_cursor` (a server
   * without paging answers everything in one page without it). Stops at {@link MAX_LIST_PAGES}
   * pages or a repeated cursor, reporting an error.
   */
  private async listRunning(server: string, client: ToolCaller, report: ReconcileReport): Promise<void> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    try {
      for (let page = 0; ; page += 1) {
        if (page >= MAX_LIST_PAGES) {
          throw new ReconcileToolError(`more than ${MAX_LIST_PAGES} pages of running tasks; stopped reading`);
        }
        const args: JsonObject = { states: ['running'], limit: this.pageSize };
        if (cursor !== undefined) args.cursor = cursor;
        const json = await this.call(client, 'list_tasks', args);
        if (!Array.isArray(json.tasks)) throw new ReconcileToolError('expected {"tasks": [TaskInfo, ...]}');
        this.collectRunning(server, json.tasks, report);
        const next = json.next_cursor;
        if (next === undefined || next === null) return;
        if (typeof next !== 'string' || seen.has(next)) {
          throw new ReconcileToolError('next_cursor is not a new string cursor; stopped reading');
        }
        seen.add(next);
        cursor = next;
      }
    } catch (err) {
      this.fail(report, { server, tool: 'list_tasks', error: describe(err) });
    }
  }

  private collectRunning(server: string, tasks: unknown[], report: ReconcileReport): void {
    tasks.forEach((raw: unknown, index: number) => {
      try {
        const info = parseTaskInfo(raw);
        if (info.state === 'running') report.running.push(info);
      } catch (err) {
        this.fail(report, { server, tool: 'list_tasks', error: `tasks[${index}]: ${describe(err)}` });
      }
    });
  }

  private async getTask(
    server: string,
    client: ToolCaller,
    task: TrackedTask,
    report: ReconcileReport,
  ): Promise<void> {
    try {
      const json = await this.call(client, 'get_task', { task_id: task.task_id });
      if (json.error === 'not_found') {
        const lost = serverRestartedTask(task, this.clock.now());
        report.tasks.set(task.task_id, lost);
        report.lost.push(lost);
        this.logger.warn('tracked task lost: its server restarted', { server, task_id: task.task_id });
        return;
      }
      if (json.error !== undefined)
        throw new ReconcileToolError(`error answer: ${JSON.stringify(json.error)}`);
      const info = parseTaskInfo(json);
      if (info.task_id !== task.task_id) {
        throw new ReconcileToolError(`answered task_id "${info.task_id}" for "${task.task_id}"`);
      }
      report.tasks.set(task.task_id, info);
    } catch (err) {
      report.unresolved.push(task);
      this.fail(report, { server, tool: 'get_task', task_id: task.task_id, error: describe(err) });
    }
  }

  private async call(client: ToolCaller, name: string, args: JsonObject): Promise<JsonObject> {
    const result: unknown = await client.callTool({ name, arguments: args }, undefined, {
      timeout: this.timeoutMs,
    });
    return toolResultJson(result);
  }

  private fail(report: ReconcileReport, error: ReconcileError): void {
    report.errors.push(error);
    this.logger.warn('reconciliation call failed', { ...error });
  }
}

function describe(err: unknown): string {
  if (err instanceof ContractValidationError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function positiveInt(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v <= 0)
    throw new ConfigError(option, `must be a positive whole number, got ${String(value)}`);
  return v;
}
