import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { laneOf } from '../../packages/core/src/events/event-queue.js';
import { driveUntil, figure } from './helpers/drive.js';
import { type ArrivedRequest, type Fault, type FaultPolicy } from './helpers/fault-receiver.js';
import {
  postedSeqs,
  rejectionRecorder,
  type Rig,
  type RigOptions,
  startRig,
  T0,
  ticker,
} from './helpers/rig.js';

// Each fault kind of the app's endpoint, on real HTTP: no loss within the cap, no reordering
// within a task, no unbounded growth, no unhandled rejection.
const MIN = 60_000;
const rejections = rejectionRecorder();
let rig: Rig | undefined;

beforeAll(() => rejections.install());
afterAll(() => rejections.remove());
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  expect(rejections.seen).toEqual([]);
});

async function runWith(
  policy: FaultPolicy,
  options: RigOptions & { tasks?: number; ticks?: number; everyMs?: number } = {},
): Promise<{ rig: Rig; tasks: string[] }> {
  const r = await startRig({ lanes: 4, ...options });
  rig = r;
  r.receiver.policy = policy;
  const tasks = Array.from(
    { length: options.tasks ?? 3 },
    () => r.manager.start('patrol', ticker(options.ticks ?? 12, options.everyMs ?? 5_000)).task_id,
  );
  await settleAll(r);
  return { rig: r, tasks };
}

/** Drives fake time until every task finished and every event is delivered or dropped. */
async function settleAll(r: Rig): Promise<void> {
  const done = () => r.manager.runningCount === 0 && r.poster.stats.queueDepth === 0;
  await driveUntil(r.clock, r.transport, done, 30 * MIN, r.observe);
}

/** No loss, no reordering, nothing left behind. */
function expectNothingLost(run: { rig: Rig; tasks: string[] }, maxSockets = 4): void {
  const { rig: r, tasks } = run;
  const posted = postedSeqs(r.posted);
  const delivered = r.receiver.seqsByTask();
  for (const task of tasks) {
    const all = posted.get(task)!;
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect({ task, seqs: delivered.get(task) }).toEqual({ task, seqs: all });
  }
  expect(r.poster.stats).toMatchObject({ accepted: r.posted.length, delivered: r.posted.length, dropped: 0 });
  expect(r.poster.stats.queueDepth).toBe(0);
  expect(r.maxDepth()).toBeLessThanOrEqual(r.posted.length);
  expect(r.logger.at('error')).toEqual([]);
  expect(r.clock.pending).toBe(0);
  expect(r.manager.runningCount).toBe(0);
  // The keep-alive pool stays bounded (one request per lane at a time, at most 8 at once).
  expect(r.receiver.openSockets).toBeLessThanOrEqual(maxSockets);
}

const until3min =
  (fault: Fault): FaultPolicy =>
  (req) =>
    req.at < T0 + 3 * MIN ? fault : { kind: 'ok' };

/** Fake-time gaps between successive attempts of each event. */
function gapsByEvent(arrivals: readonly ArrivedRequest[]): number[][] {
  const times = new Map<string, number[]>();
  for (const a of arrivals) times.set(a.eventId, [...(times.get(a.eventId) ?? []), a.at]);
  return [...times.values()].map((t) => t.slice(1).map((at, i) => at - t[i]!));
}

describe('receiver faults (real HTTP on loopback)', () => {
  it('500 for 3 minutes: retried on the schedule, then all delivered in order', async () => {
    const run = await runWith(until3min({ kind: 'status', status: 500 }));
    expectNothingLost(run);
    const failed = run.rig.receiver.arrivals.length - run.rig.posted.length;
    // Each busy lane's head event fails about 9 times in 3 minutes (0, 0.5, 2.5, 10.5, 40.5, 70.5 s
    // ...); the three tasks share a lane now and then, since their ids hash onto 4 lanes.
    const busyLanes = new Set(run.tasks.map((task) => laneOf(task, 4))).size;
    expect(failed).toBeGreaterThanOrEqual(8 * busyLanes);
    // A head event of a lane fails at 0, 0.5, 2.5, 10.5, 40.5 s ... after it is first tried.
    const first = gapsByEvent(run.rig.receiver.arrivals).find((g) => g.length >= 4)!;
    expect(first.slice(0, 4)).toEqual([500, 2000, 8000, 30_000]);
    figure('fault 500 x 3 min', { events: run.rig.posted.length, failed_attempts: failed });
  });

  it('429 without Retry-After for 3 minutes: same schedule, nothing lost', async () => {
    const run = await runWith(until3min({ kind: 'status', status: 429 }));
    expectNothingLost(run);
    expect(run.rig.receiver.arrivals.length).toBeGreaterThan(run.rig.posted.length);
  });

  it('503 with Retry-After is honoured within the schedule (raised to it, capped at 30 s)', async () => {
    // The first attempt of every event answers 503 with a Retry-After that depends on the task.
    const seen = new Set<string>();
    let retryAfter: Record<string, string> = {};
    const run = await runWith(
      (req) => {
        if (seen.has(req.eventId)) return { kind: 'ok' };
        seen.add(req.eventId);
        return { kind: 'status', status: 503, headers: { 'Retry-After': retryAfter[req.taskId]! } };
      },
      { tasks: 0 },
    );
    const r = run.rig;
    const [slow, huge, tiny] = [0, 1, 2].map(() => r.manager.start('patrol', ticker(3, 5_000)).task_id);
    retryAfter = { [slow!]: '20', [huge!]: '3600', [tiny!]: '0.1' };
    await settleAll(r);
    expectNothingLost({ rig: r, tasks: [slow!, huge!, tiny!] });
    const gaps = (task: string) => gapsByEvent(r.receiver.arrivals.filter((a) => a.taskId === task));
    expect(gaps(slow!)).toEqual(Array.from({ length: 4 }, () => [20_000]));
    expect(gaps(huge!)).toEqual(Array.from({ length: 4 }, () => [30_000]));
    expect(gaps(tiny!)).toEqual(Array.from({ length: 4 }, () => [500]));
  });

  it('503 with an HTTP-date Retry-After is honoured too', async () => {
    const seen = new Set<string>();
    let now = (): number => T0;
    const run = await runWith(
      (req) => {
        if (seen.has(req.eventId)) return { kind: 'ok' };
        seen.add(req.eventId);
        return {
          kind: 'status',
          status: 503,
          headers: { 'Retry-After': new Date(now() + 15_000).toUTCString() },
        };
      },
      { tasks: 0 },
    );
    const r = run.rig;
    now = () => r.clock.now();
    const task = r.manager.start('patrol', ticker(2, 4_000)).task_id;
    await settleAll(r);
    expectNothingLost({ rig: r, tasks: [task] });
    // HTTP dates have whole seconds: the wait is 15 s minus the sub-second part of "now".
    for (const [gap] of gapsByEvent(r.receiver.arrivals)) expect(gap).toBeGreaterThanOrEqual(14_000);
  });

  it('hangs until the request timeout: the attempt times out and is retried, nothing lost', async () => {
    const run = await runWith((_req, index) => (index < 6 ? { kind: 'hang' } : { kind: 'ok' }), {
      timeoutMs: 250,
    });
    expectNothingLost(run);
    expect(
      run.rig.logger.at('warn', 'will retry').some((e) => /timeout after 250 ms/.test(String(e.meta.error))),
    ).toBe(true);
    expect(run.rig.receiver.hanging).toBe(0);
  });

  it('resets the connection: retried, nothing lost', async () => {
    const run = await runWith((req, index) =>
      req.at < T0 + 2 * MIN && index % 2 === 0 ? { kind: 'reset' } : { kind: 'ok' },
    );
    expectNothingLost(run);
    expect(
      run.rig.logger
        .at('warn', 'will retry')
        .some((e) => /ECONNRESET|socket hang up/.test(String(e.meta.error))),
    ).toBe(true);
  });

  it('answers slowly (1 s per request): nothing lost, nothing reordered', async () => {
    const run = await runWith(() => ({ kind: 'slow', delayMs: 1000 }), { tasks: 3, ticks: 1, lanes: 8 });
    expectNothingLost(run);
    expect(run.rig.receiver.arrivals).toHaveLength(run.rig.posted.length);
  });

  it('a mix of every fault at random (seeded): nothing lost, nothing reordered', async () => {
    let state = 0x2f6b1c;
    const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const faults: Fault[] = [
      { kind: 'ok' },
      { kind: 'status', status: 500 },
      { kind: 'status', status: 502 },
      { kind: 'status', status: 429 },
      { kind: 'status', status: 503, headers: { 'Retry-After': '5' } },
      { kind: 'status', status: 404 },
      { kind: 'reset' },
      { kind: 'hang' },
    ];
    const run = await runWith(
      (req) => (req.at < T0 + 5 * MIN ? faults[Math.floor(random() * faults.length)]! : { kind: 'ok' }),
      { timeoutMs: 200, tasks: 6, ticks: 15, everyMs: 3_000 },
    );
    expectNothingLost(run);
    figure('fault mix', {
      events: run.rig.posted.length,
      attempts: run.rig.transport.sends,
      max_queue_depth: run.rig.maxDepth(),
    });
  });

  it('a task whose events keep failing holds up only the tasks of its lane, not the others', async () => {
    const r = await startRig();
    rig = r;
    const ids = Array.from({ length: 100 }, () => r.manager.start('patrol', ticker(1, 1000)).task_id);
    const bad = ids[0]!;
    r.receiver.policy = (req) => (req.taskId === bad ? { kind: 'status', status: 500 } : { kind: 'ok' });
    await driveUntil(r.clock, r.transport, () => r.posted.length === 200, MIN, r.observe);
    // The clock does not move past the tick: whatever is delivered now did not wait for a retry.
    const lane = laneOf(bad, 256);
    const sharing = ids.filter((id) => id !== bad && laneOf(id, 256) === lane);
    const delivered = new Set(r.receiver.uniqueAcked().map((a) => a.taskId));
    const waiting = ids.filter((id) => id !== bad && !delivered.has(id));
    expect(waiting.sort()).toEqual(sharing.sort());
    r.receiver.policy = () => ({ kind: 'ok' });
    await settleAll(r);
    expectNothingLost({ rig: r, tasks: ids }, 8);
  });

  it('never has more than 8 requests in flight at once, whatever the number of tasks', async () => {
    const run = await runWith(() => ({ kind: 'slow', delayMs: 150 }), { tasks: 40, ticks: 1, lanes: 256 });
    expectNothingLost(run, 8);
    expect(run.rig.receiver.maxActive).toBe(8);
  });
});
