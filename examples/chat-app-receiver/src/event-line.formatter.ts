import { type JsonObject, type TaskEvent, type TaskInfo } from '@robot-mcp-kit/core';
import { type ReconcileReport, type SeqGap } from '@robot-mcp-kit/receiver';

const MAX_SUMMARY = 160;

/** `eta_s=0.5 percent=66.67 trigger={"type":"eta_below","seconds":1}`, cut at 160 characters. */
export function summarize(payload: JsonObject | null | undefined): string {
  if (!payload) return '';
  const text = Object.entries(payload)
    .map(
      ([key, value]) =>
        `${key}=${typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`,
    )
    .join(' ');
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

/** `event sleeper/<task_id> seq=3 progress eta_s=0.5 percent=66.67` (with ` (late)` for an old seq). */
export function formatEvent(event: TaskEvent, late = false): string {
  const summary = summarize(event.payload);
  return `event ${event.server}/${event.task_id} seq=${event.seq} ${event.type}${summary ? ` ${summary}` : ''}${late ? ' (late)' : ''}`;
}

/** `gap sleeper/<task_id> missed seq 1..2 (got 3): reconciling`. */
export function formatGap(gap: SeqGap): string {
  const missed = gap.got - 1 === gap.expected ? `${gap.expected}` : `${gap.expected}..${gap.got - 1}`;
  return `gap ${gap.server}/${gap.task_id} missed seq ${missed} (got ${gap.got}): reconciling`;
}

/** `task sleeper/<task_id> sleep_task succeeded result={"slept_s":3}` (the server's truth). */
export function formatTask(info: TaskInfo): string {
  const detail =
    info.state === 'running'
      ? summarize(info.progress ? { progress: info.progress } : null)
      : info.state === 'succeeded'
        ? summarize({ result: info.result ?? null })
        : info.failure
          ? `${info.failure.error_code}: ${info.failure.message}`
          : '';
  return `task ${info.server}/${info.task_id} ${info.tool || '?'} ${info.state}${detail ? ` ${detail}` : ''}`;
}

/** A summary line, one line per task the report establishes, one per error. */
export function formatReport(report: ReconcileReport): string[] {
  const known = [...report.tasks.values()];
  const shown = new Set(known.map((info) => `${info.server}/${info.task_id}`));
  const lines = [
    `reconciled: ${report.running.length} running, ${known.length} tracked answered (${report.lost.length} lost), ` +
      `${report.unresolved.length} unresolved, ${report.errors.length} errors`,
  ];
  for (const info of [...known, ...report.running.filter((i) => !shown.has(`${i.server}/${i.task_id}`))]) {
    lines.push(formatTask(info));
  }
  for (const error of report.errors) {
    lines.push(
      `error ${error.server} ${error.tool}${error.task_id ? ` ${error.task_id}` : ''}: ${error.error}`,
    );
  }
  return lines;
}
