import { EventPoster, TaskEvent, type EventType, type JsonObject } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { until } from '../support/until.js';

/** The secret both receivers of the interop suites verify (a test constant, not a credential). */
export const INTEROP_SECRET = 'interop-secret-0123456789abcdef';
export const SERVER = 'navigation';

/** How a test holds and frees its receiver (requests wait inside it while held). */
export interface ReceiverGate {
  block(): Promise<void>;
  release(): Promise<void>;
  /** Requests waiting inside the receiver now. */
  held(): Promise<number>;
}

export interface OverloadPlan {
  readonly batches: number;
  /** Tasks of one batch; at most `maxQueue`, so that every terminal event fits. */
  readonly tasksPerBatch: number;
  readonly progressPerTask: number;
  readonly maxQueue: number;
}

/** What the driver posted: per task, its terminal seq and type. */
export interface DriveReport {
  readonly terminals: Map<string, { seq: number; type: EventType }>;
  readonly posted: number;
  readonly poster: EventPoster;
}

let eventCounter = 0;

function event(taskId: string, seq: number, type: EventType, payload: JsonObject): TaskEvent {
  eventCounter += 1;
  return TaskEvent.create({
    event_id: `${eventCounter.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
    task_id: taskId,
    server: SERVER,
    tool: 'navigate_to',
    type,
    seq,
    ts: new Date(),
    payload,
  });
}

function terminalOf(taskId: string, seq: number, index: number): TaskEvent {
  if (index % 2 === 0) return event(taskId, seq, 'task_done', { result: { arrived: true, index } });
  const failure = { error_code: 'DOOR_CLOSED', message: 'The door is closed.', recoverable: false };
  return event(taskId, seq, 'task_failed', { ...failure, suggestions: ['ask_reception'] });
}

/**
 * Posts batches of tasks into a poster with a tiny queue while the receiver is held: each task
 * posts its progress (round-robin over the batch, every third task a trigger_fired midway), then
 * its terminal event (task_done or task_failed, alternately). Every batch is flushed after the
 * receiver is released. The queue overflows: progress is coalesced, terminal events carry markers.
 */
export async function driveOverload(
  url: string,
  plan: OverloadPlan,
  gate: ReceiverGate,
): Promise<DriveReport> {
  const transport = new HttpEventTransport({ url, secret: INTEROP_SECRET, serverName: SERVER });
  const poster = new EventPoster({ serverName: SERVER, transport, maxQueue: plan.maxQueue });
  const terminals = new Map<string, { seq: number; type: EventType }>();
  let posted = 0;
  const post = (e: TaskEvent): void => {
    posted += 1;
    poster.post(e);
  };
  for (let batch = 0; batch < plan.batches; batch += 1) {
    await gate.block();
    const ids = Array.from({ length: plan.tasksPerBatch }, (_, i) => {
      const n = batch * plan.tasksPerBatch + i;
      return `nav-${n.toString(16).padStart(6, '0')}`;
    });
    const seqs = new Map(ids.map((id) => [id, 0]));
    const next = (id: string): number => {
      const seq = (seqs.get(id) ?? 0) + 1;
      seqs.set(id, seq);
      return seq;
    };
    for (let p = 1; p <= plan.progressPerTask; p += 1) {
      for (const [i, id] of ids.entries()) {
        post(event(id, next(id), 'progress', { percent: p * 10 }));
        if (i % 3 === 0 && p === Math.ceil(plan.progressPerTask / 2))
          post(event(id, next(id), 'trigger_fired', { trigger: { type: 'progress_above', percent: 50 } }));
      }
      if (p === 1) await until(async () => (await gate.held()) > 0, 'a request held in the receiver');
    }
    for (const [i, id] of ids.entries()) {
      const end = terminalOf(id, next(id), i);
      terminals.set(id, { seq: end.seq, type: end.type });
      post(end);
    }
    await gate.release();
    if (!(await poster.flush(30_000)))
      throw new Error(`batch ${batch} did not flush: ${JSON.stringify(poster.stats)}`);
  }
  return { terminals, posted, poster };
}
