import { type Task, type TaskStatus } from '@modelcontextprotocol/sdk/types.js';
import { type JsonObject, type TaskInfo, type TaskState } from '@robot-mcp-kit/core';
import { isoTime } from '@robot-mcp-kit/core/rules';

/** The protocol status of each TaskManager state (one state machine, two vocabularies). */
export const PROTOCOL_STATUS: Readonly<Record<TaskState, TaskStatus>> = Object.freeze({
  running: 'working',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
});

/** How long a protocol task is kept and how often to poll it. */
export interface TaskRetention {
  readonly ttl: number;
  readonly pollInterval: number;
}

const MAX_MESSAGE = 500;
const MAX_JSON_SUMMARY = 200;

/**
 * A one-line text of a progress payload: its `message` when it has one, else a summary of
 * `percent` and `eta_s` (`60% — eta 22.4 s`), else its compact JSON (truncated).
 */
export function progressSummary(payload: JsonObject): string {
  const message = payload.message;
  if (typeof message === 'string' && message.trim().length > 0) return truncate(message.trim(), MAX_MESSAGE);
  const parts: string[] = [];
  const percent = finite(payload.percent);
  const eta = finite(payload.eta_s);
  if (percent !== undefined) parts.push(`${round1(percent)}%`);
  if (eta !== undefined) parts.push(`eta ${round1(eta)} s`);
  if (parts.length > 0) return parts.join(' — ');
  return truncate(JSON.stringify(payload), MAX_JSON_SUMMARY);
}

/** The statusMessage of a task: its last progress while working, the failure when failed. */
export function statusMessageOf(info: TaskInfo): string | undefined {
  switch (info.state) {
    case 'running':
      return info.progress ? progressSummary(info.progress) : undefined;
    case 'failed':
      return info.failure
        ? truncate(`${info.failure.error_code}: ${info.failure.message}`, MAX_MESSAGE)
        : 'The task failed.';
    case 'cancelled':
      return 'The task was cancelled.';
    default:
      return undefined;
  }
}

/** The protocol Task of a TaskManager task (tasks/get, tasks/list, tasks/cancel, status notifications). */
export function toProtocolTask(info: TaskInfo, retention: TaskRetention): Task {
  const statusMessage = statusMessageOf(info);
  const status = PROTOCOL_STATUS[info.state];
  const createdAt = isoTime(info.created_at);
  const lastUpdatedAt = isoTime(info.updated_at);
  const { ttl, pollInterval } = retention;
  // Two literals, not a spread: this runs for every created task and status notification.
  return statusMessage === undefined
    ? { taskId: info.task_id, status, createdAt, lastUpdatedAt, ttl, pollInterval }
    : { taskId: info.task_id, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval };
}

/** The numbers of one notifications/progress: percent of 100 when the payload has one, else a counter. */
export function progressValues(
  payload: JsonObject,
  counter: number,
): { progress: number; total?: number; message: string } {
  const percent = finite(payload.percent);
  const message = progressSummary(payload);
  return percent !== undefined ? { progress: percent, total: 100, message } : { progress: counter, message };
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
