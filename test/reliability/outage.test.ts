import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { driveTo, driveUntilDrained, figure } from './helpers/drive.js';
import { droppedIds, postedSeqs, rejectionRecorder, type Rig, startRig, T0, ticker } from './helpers/rig.js';

// The receiver (the app's events endpoint) is down — connections refused — for 1, 9 and 30
// minutes of fake time while tasks keep running. The retry cap is 10 minutes from post time.
const MIN = 60_000;
const CAP = 10 * MIN;
const rejections = rejectionRecorder();
let rig: Rig | undefined;

beforeAll(() => rejections.install());
afterAll(() => rejections.remove());
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  expect(rejections.seen).toEqual([]);
});

interface OutageRun {
  rig: Rig;
  start: number;
  recover: number;
  tasks: string[];
}

/**
 * Four tasks: two that run through the whole outage, one that ends in the middle of it, one that
 * starts in the middle of it. The outage starts 2 min in; recovery falls on a quarter second so
 * no retry timer (all on half seconds) ties with it.
 */
async function runOutage(outageMs: number, maxQueue?: number): Promise<OutageRun> {
  const r = await startRig({ maxQueue, lanes: 4 });
  rig = r;
  const start = T0 + 2 * MIN + 250;
  const recover = start + outageMs + 1250;
  const total = 2 * MIN + outageMs + 3 * MIN;
  const tasks = [
    r.manager.start('patrol', ticker(total / 10_000, 10_000)).task_id,
    r.manager.start('patrol', ticker(Math.floor(total / 7_000), 7_000)).task_id,
    r.manager.start('patrol', ticker((2 * MIN + outageMs / 2) / 5_000, 5_000)).task_id,
  ];
  await driveTo(r.clock, r.transport, start, r.observe);
  await r.receiver.down();
  await driveTo(r.clock, r.transport, start + outageMs / 2, r.observe);
  tasks.push(r.manager.start('patrol', ticker((outageMs / 2 + 4 * MIN) / 10_000, 10_000)).task_id);
  await driveTo(r.clock, r.transport, recover, r.observe);
  await r.receiver.up();
  await driveTo(r.clock, r.transport, T0 + total + 2 * MIN, r.observe);
  await driveUntilDrained(r.clock, r.transport, r.poster, 2 * CAP, r.observe);
  expect(r.manager.runningCount).toBe(0);
  return { rig: r, start, recover, tasks };
}

/** The events a correct poster must give up: posted during the outage, cap passed before recovery. */
function pastCap(run: OutageRun) {
  return run.rig.posted.filter((p) => p.at > run.start && p.at + CAP < run.recover);
}

function expectDeliveredInOrderExceptPastCap(run: OutageRun): void {
  const { rig: r } = run;
  const lost = new Set(pastCap(run).map((p) => p.event.event_id));
  const expected = postedSeqs(r.posted, (p) => !lost.has(p.event.event_id));
  const delivered = r.receiver.seqsByTask();
  for (const task of run.tasks)
    expect({ task, seqs: delivered.get(task) }).toEqual({ task, seqs: expected.get(task) });
  expect(r.receiver.arrivals.every((a) => a.signatureValid)).toBe(true);
  const dropped = droppedIds(r);
  expect(dropped.map((d) => d.reason).every((reason) => reason === 'retry_cap')).toBe(true);
  expect(dropped.map((d) => d.id).sort()).toEqual([...lost].sort());
  expect(r.poster.stats).toMatchObject({
    accepted: r.posted.length,
    delivered: r.posted.length - lost.size,
    dropped: lost.size,
    queueDepth: 0,
  });
  expect(r.maxDepth()).toBeLessThanOrEqual(10_000);
  expect(r.clock.pending).toBe(0);
  figure(`outage ${((run.recover - run.start) / MIN) | 0} min`, {
    posted: r.posted.length,
    delivered: r.poster.stats.delivered,
    dropped_past_cap: lost.size,
    attempts: r.transport.sends,
    max_queue_depth: r.maxDepth(),
  });
}

describe('receiver outages (connections refused, fake time)', () => {
  it('down for 1 minute: every event is delivered after recovery, in per-task order', async () => {
    const run = await runOutage(1 * MIN);
    expect(pastCap(run)).toHaveLength(0);
    expectDeliveredInOrderExceptPastCap(run);
    expect(run.rig.poster.stats.retried).toBeGreaterThan(0);
  });

  it('down for 9 minutes: still inside the cap, nothing is dropped', async () => {
    const run = await runOutage(9 * MIN);
    expect(pastCap(run)).toHaveLength(0);
    expectDeliveredInOrderExceptPastCap(run);
  });

  it('down for 30 minutes: exactly the events past the 10-minute cap are dropped and logged', async () => {
    const run = await runOutage(30 * MIN);
    const lost = pastCap(run);
    expect(lost.length).toBeGreaterThan(100);
    // The task that finished mid-outage lost its task_done: reconciliation (get_task) covers it.
    expect(lost.some((p) => p.event.type === 'task_done')).toBe(true);
    expectDeliveredInOrderExceptPastCap(run);
    // Logged as a summary: the first drop in full, then one line per 10 s window, not one per event.
    const logged = run.rig.logger.at('error').filter((e) => e.meta.reason === 'retry_cap');
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0]!.message).toMatch(
      /^dropped progress event \w+ \(task rove-\w{6}, seq \d+\): gave up after/,
    );
    const lines = run.rig.logger.at('error').filter((e) => /dropped/.test(e.message)).length;
    expect(lines).toBeLessThan(lost.length);
  }, 60_000);

  it('down for 9 minutes with a small queue: memory stays bounded, progress is sacrificed first', async () => {
    const maxQueue = 25;
    const run = await runOutage(9 * MIN, maxQueue);
    const { rig: r } = run;
    // maxQueue waiting events, plus at most one in flight per lane (4 here).
    expect(r.maxDepth()).toBeLessThanOrEqual(maxQueue + 4);
    const dropped = droppedIds(r);
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((d) => d.reason === 'coalesced' && d.type === 'progress')).toBe(true);
    // Every event is either delivered or dropped (coalesced), never both, never neither.
    const delivered = r.receiver.uniqueAcked().map((a) => a.eventId);
    const droppedSet = new Set(dropped.map((d) => d.id));
    expect(droppedSet.size).toBe(dropped.length);
    expect(delivered.filter((id) => droppedSet.has(id))).toEqual([]);
    expect([...delivered, ...droppedSet].sort()).toEqual(r.posted.map((p) => p.event.event_id).sort());
    // What is delivered is in per-task order, and every task's terminal event made it.
    for (const [task, seqs] of r.receiver.seqsByTask()) {
      expect({ task, seqs }).toEqual({ task, seqs: [...seqs].sort((a, b) => a - b) });
    }
    const done = r.receiver.uniqueAcked().filter((a) => a.type === 'task_done');
    expect(done.map((a) => a.taskId).sort()).toEqual([...run.tasks].sort());
    expect(r.poster.stats.queueDepth).toBe(0);
    figure('outage 9 min, maxQueue 25', {
      posted: r.posted.length,
      delivered: delivered.length,
      coalesced: dropped.length,
      max_queue_depth: r.maxDepth(),
    });
  });
});
