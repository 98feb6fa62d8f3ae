import { type TaskEvent } from '@robot-mcp-kit/core';
import { type TaskView } from './fleet-board.js';

const ICONS: Record<string, string> = {
  progress: '·',
  trigger_fired: '⚡',
  task_done: '✅',
  task_failed: '❌',
};

/** One terminal line per verified event: robot, task, seq, type and what changed. */
export function eventLine(robot: string, task: TaskView, event: TaskEvent): string {
  const icon = ICONS[event.type] ?? '•';
  const parts = [
    `${robot.padEnd(8)} ${task.task_id} #${String(event.seq).padStart(3)} ${icon} ${event.type}`,
  ];
  if (task.percent !== undefined) parts.push(`${bar(task.percent)} ${Math.round(task.percent)}%`);
  if (task.eta_s !== undefined && task.state === 'running') parts.push(`eta ${task.eta_s.toFixed(1)} s`);
  if (task.zone) parts.push(`zone ${task.zone}`);
  parts.push('✔ verified');
  return parts.join('  ');
}

function bar(percent: number, width = 12): string {
  const filled = Math.max(0, Math.min(width, Math.round((percent / 100) * width)));
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`;
}
