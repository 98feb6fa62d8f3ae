import { type TaskEvent, type TaskState } from '@robot-mcp-kit/core';

/** One task as the app sees it from its events. */
export interface TaskView {
  readonly robot: string;
  readonly task_id: string;
  readonly tool: string;
  state: TaskState;
  percent?: number;
  eta_s?: number;
  zone?: string;
  /** The last event's type and seq. */
  last: string;
  seq: number;
  events: number;
}

/** The fleet: every robot's tasks, newest first. */
export interface FleetSnapshot {
  readonly robots: readonly {
    readonly robot: string;
    readonly events: number;
    readonly tasks: readonly TaskView[];
  }[];
  readonly events: number;
}

const TERMINAL: Partial<Record<TaskEvent['type'], TaskState>> = {
  task_done: 'succeeded',
  task_failed: 'failed',
};

/** Folds verified events into per-robot task views; listeners hear about every change. */
export class FleetBoard {
  private readonly robots = new Map<string, Map<string, TaskView>>();
  private readonly listeners = new Set<(robot: string, task: TaskView, event: TaskEvent) => void>();
  private total = 0;

  /** Lists a robot before it sends anything (so the page shows it idle). */
  addRobot(robot: string): void {
    if (!this.robots.has(robot)) this.robots.set(robot, new Map());
  }

  apply(robot: string, event: TaskEvent): TaskView {
    this.addRobot(robot);
    const tasks = this.robots.get(robot)!;
    let task = tasks.get(event.task_id);
    if (!task) {
      task = {
        robot,
        task_id: event.task_id,
        tool: event.tool,
        state: 'running',
        last: '',
        seq: 0,
        events: 0,
      };
      tasks.set(event.task_id, task);
    }
    const payload = event.payload as Record<string, unknown>;
    if (typeof payload.percent === 'number') task.percent = payload.percent;
    if (typeof payload.eta_s === 'number') task.eta_s = payload.eta_s;
    if (typeof payload.zone === 'string') task.zone = payload.zone;
    const result = payload.result as Record<string, unknown> | undefined;
    if (result && typeof result.zone === 'string') task.zone = result.zone;
    task.state = TERMINAL[event.type] ?? task.state;
    if (task.state === 'succeeded') task.percent = 100;
    task.last = event.type;
    task.seq = Math.max(task.seq, event.seq);
    task.events += 1;
    this.total += 1;
    for (const listener of this.listeners) listener(robot, task, event);
    return task;
  }

  onChange(listener: (robot: string, task: TaskView, event: TaskEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): FleetSnapshot {
    const robots = [...this.robots.entries()].map(([robot, tasks]) => {
      const list = [...tasks.values()].reverse().map((t) => ({ ...t }));
      return { robot, events: list.reduce((n, t) => n + t.events, 0), tasks: list };
    });
    return { robots, events: this.total };
  }
}
