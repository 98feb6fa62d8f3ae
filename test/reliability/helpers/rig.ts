import { EventPoster, type TaskContext, type TaskEvent, TaskManager } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { TrackedTransport } from './drive.js';
import { FaultReceiver } from './fault-receiver.js';

export const SECRET = 'reliability-secret';
export const T0 = Date.UTC(2026, 5, 12, 8, 0, 0);

/** One event as the poster accepted it, with the fake time of acceptance. */
export interface Posted {
  readonly event: TaskEvent;
  readonly at: number;
}

/** A server side (TaskManager → EventPoster → HTTP) and a fault receiver, all on one fake clock. */
export interface Rig {
  readonly clock: ManualClock;
  readonly receiver: FaultReceiver;
  readonly transport: TrackedTransport;
  readonly poster: EventPoster;
  readonly manager: TaskManager;
  readonly logger: MemoryLogger;
  readonly posted: Posted[];
  /** Every event the poster dropped or coalesced, with the reason (`poster.subscribeDrops`). */
  readonly drops: { id: string; reason: string; type: string }[];
  /** Largest poster queue depth seen by {@link Rig.observe}. */
  readonly maxDepth: () => number;
  /** Samples the poster's queue depth (pass to the drivers). */
  readonly observe: () => void;
  close(): Promise<void>;
}

export interface RigOptions {
  maxQueue?: number;
  lanes?: number;
  /** Real per-request timeout of the HTTP transport (default 2000 ms). */
  timeoutMs?: number;
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const clock = new ManualClock(T0);
  const logger = new MemoryLogger();
  const receiver = await FaultReceiver.start(SECRET, clock);
  const http = new HttpEventTransport({
    url: receiver.url,
    secret: SECRET,
    serverName: 'rover',
    clock,
    timeoutMs: options.timeoutMs ?? 2000,
  });
  const transport = new TrackedTransport(http);
  const poster = new EventPoster({
    serverName: 'rover',
    transport,
    clock,
    logger,
    maxQueue: options.maxQueue,
    lanes: options.lanes,
  });
  const manager = new TaskManager({ serverName: 'rover', poster, clock, logger, cancelGraceMs: 1000 });
  const posted: Posted[] = [];
  manager.onChange(({ event }) => {
    if (event) posted.push({ event, at: clock.now() });
  });
  const drops: Rig['drops'] = [];
  poster.subscribeDrops((event, reason) => drops.push({ id: event.event_id, reason, type: event.type }));
  let max = 0;
  return {
    clock,
    receiver,
    transport,
    poster,
    manager,
    logger,
    posted,
    drops,
    maxDepth: () => max,
    observe: () => {
      max = Math.max(max, poster.stats.queueDepth);
    },
    async close() {
      await manager.aclose({ flush: false });
      await poster.aclose({ timeoutMs: 0 });
      await receiver.close();
    },
  };
}

/** A task body that reports progress every `everyMs` of fake time, `count` times, then succeeds. */
export function ticker(count: number, everyMs: number) {
  return async (ctx: TaskContext) => {
    for (let i = 1; i <= count; i += 1) {
      await ctx.sleep(everyMs);
      await ctx.progress({ tick: i, percent: Math.round((100 * i) / count) });
    }
    return { ticks: count };
  };
}

/** The events the poster gave up or coalesced, with the reason (logged as a 10 s summary). */
export function droppedIds(rig: Rig): { id: string; reason: string; type: string }[] {
  return rig.drops;
}

/** Seqs posted per task, in post order. */
export function postedSeqs(posted: readonly Posted[], keep: (p: Posted) => boolean = () => true) {
  const out = new Map<string, number[]>();
  for (const p of posted) {
    if (!keep(p)) continue;
    out.set(p.event.task_id, [...(out.get(p.event.task_id) ?? []), p.event.seq]);
  }
  return out;
}

/** Records unhandled rejections while installed. */
export function rejectionRecorder(): { readonly seen: unknown[]; install(): void; remove(): void } {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    seen.push(reason);
  };
  return {
    seen,
    install: () => process.on('unhandledRejection', onRejection),
    remove: () => process.off('unhandledRejection', onRejection),
  };
}
