// The sleeper as a real process posting signed events over HTTP to a receiver in this process.
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { type ReconcileReport, Reconciler, type SeqGap } from '@robot-mcp-kit/receiver';
import {
  connectClient,
  getTask,
  range,
  requireBuilt,
  Resources,
  SECRET,
  SLEEPER_MAIN,
  startReceiver,
  startSleep,
  startSleeper,
  waitFor,
  waitUntilFinished,
} from './e2e.harness.js';
import { deferred } from '../../../test/support/until.js';

const resources = new Resources();
const secrets = { sleeper: SECRET };
const callback = (url: string, secret = SECRET) => ({ RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: secret });
const ofTask = (events: readonly TaskEvent[], taskId: string) => events.filter((e) => e.task_id === taskId);

beforeAll(() => requireBuilt(SLEEPER_MAIN));
afterEach(() => resources.cleanup());

describe('sleeper → receiver over HTTP', () => {
  it('delivers every event of a task once, in seq order, after verifying its signature', async () => {
    const delivered: TaskEvent[] = [];
    const rx = await startReceiver(resources, { secrets, onEvent: (event) => void delivered.push(event) });
    const sleeper = await startSleeper(resources, callback(rx.url));
    const client = await connectClient(resources, sleeper.url);

    const taskId = await startSleep(client, {
      duration_s: 1.5,
      triggers: [
        { type: 'eta_below', seconds: 1 },
        { type: 'progress_above', percent: 50 },
      ],
    });
    const done = await waitFor('task_done', () => delivered.find((e) => e.type === 'task_done'));

    const events = ofTask(delivered, taskId);
    expect(events).toHaveLength(delivered.length);
    expect(events.map((e) => e.seq)).toEqual(range(events.length));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    expect(events[events.length - 1]).toBe(done);
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(2);
    const fired = events.filter((e) => e.type === 'trigger_fired').map((e) => e.payload.trigger);
    expect(fired).toEqual(
      expect.arrayContaining([
        { type: 'eta_below', seconds: 1 },
        { type: 'progress_above', percent: 50 },
      ]),
    );
    expect(fired).toHaveLength(2);
    expect(events.every((e) => e.server === 'sleeper' && e.tool === 'sleep_task')).toBe(true);
    // What the events said is what the server says.
    const info = await getTask(client, taskId);
    expect(info.state).toBe('succeeded');
    expect(done.payload).toEqual({ result: info.result });
    expect(rx.receiver.stats()).toMatchObject({
      delivered: events.length,
      duplicates: 0,
      failed: 0,
      gaps: 0,
      byStatus: { 200: events.length },
    });
  });

  it('rejects every event signed with another secret (401) and delivers none', async () => {
    const delivered: TaskEvent[] = [];
    const rx = await startReceiver(resources, { secrets, onEvent: (event) => void delivered.push(event) });
    const sleeper = await startSleeper(resources, callback(rx.url, 'not-the-shared-secret-0123456789abcdef'));
    const client = await connectClient(resources, sleeper.url);
    await startSleep(client, { duration_s: 1 });

    await waitFor('a 401', () => (rx.receiver.stats().byStatus[401] ?? 0) >= 1);
    await waitFor('the sleeper to log the rejection', () => sleeper.stderr().includes('HTTP 401'));
    expect(delivered).toEqual([]);
    expect(rx.receiver.stats()).toMatchObject({ delivered: 0, byStatus: { 401: expect.any(Number) } });
    expect(rx.receiver.stats().byStatus[200]).toBeUndefined();
  });

  it('after 500s (onEvent throws) the poster retries: each event delivered once, none lost', async () => {
    const attempts: TaskEvent[] = [];
    const delivered: TaskEvent[] = [];
    const rx = await startReceiver(resources, {
      secrets,
      onEvent: (event) => {
        attempts.push(event);
        if (attempts.length <= 2) throw new Error('database unavailable'); // → 500, retried
        delivered.push(event);
      },
    });
    const sleeper = await startSleeper(resources, callback(rx.url));
    const client = await connectClient(resources, sleeper.url);
    const taskId = await startSleep(client, { duration_s: 1.5 });
    await waitFor('task_done', () => delivered.find((e) => e.type === 'task_done'), 20_000);

    // The first event was refused twice, then accepted on the poster's second retry.
    expect(attempts[0]!.event_id).toBe(attempts[1]!.event_id);
    expect(attempts[2]!.event_id).toBe(attempts[0]!.event_id);
    const events = ofTask(delivered, taskId);
    expect(events.map((e) => e.seq)).toEqual(range(events.length));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    expect(events[events.length - 1]!.type).toBe('task_done');
    expect(attempts).toHaveLength(events.length + 2);
    expect(rx.receiver.stats()).toMatchObject({ failed: 2, delivered: events.length, gaps: 0, late: 0 });
    expect(rx.receiver.stats().byStatus[500]).toBe(2);
    expect(sleeper.stderr()).toContain('event delivery failed; will retry');
  });

  it('a retry after a lost answer (the poster timed out) is a duplicate: answered 200, not delivered again', async () => {
    const delivered: TaskEvent[] = [];
    // The first delivery is held open by the test until the poster has given up on its answer
    // (its 300 ms timeout, logged as a failed delivery): no race with a fixed delay.
    const gate = deferred();
    resources.onCleanup(async () => gate.resolve());
    const rx = await startReceiver(resources, {
      secrets,
      onEvent: async (event) => {
        delivered.push(event);
        if (delivered.length === 1) await gate.promise;
      },
    });
    const sleeper = await startSleeper(resources, { ...callback(rx.url), RVC_EVENT_TIMEOUT_MS: '300' });
    const client = await connectClient(resources, sleeper.url);
    const taskId = await startSleep(client, { duration_s: 1.5 });
    await waitFor(
      'the poster to time out on the first event',
      () => sleeper.stderr().includes('event delivery failed; will retry'),
      20_000,
      sleeper.exited,
    );
    gate.resolve();
    await waitFor('task_done', () => delivered.find((e) => e.type === 'task_done'), 20_000);

    const events = ofTask(delivered, taskId);
    expect(events.map((e) => e.seq)).toEqual(range(events.length));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    expect(rx.receiver.stats().duplicates).toBeGreaterThanOrEqual(1);
    expect(rx.receiver.stats()).toMatchObject({ delivered: events.length, failed: 0, late: 0 });
  });

  it('a receiver restarted mid-task reports the gap, and reconcile gives the server’s truth', async () => {
    const before: TaskEvent[] = [];
    // The first app takes exactly two events, then refuses (500) until it goes away: where the
    // task is when the test stops it does not matter, however slow the machine is.
    const first = await startReceiver(resources, {
      secrets,
      onEvent: (event) => {
        if (before.length >= 2) throw new Error('the app is going away');
        before.push(event);
      },
    });
    const sleeper = await startSleeper(resources, callback(first.url));
    const client = await connectClient(resources, sleeper.url);
    const taskId = await startSleep(client, {
      duration_s: 3,
      triggers: [{ type: 'progress_above', percent: 10 }],
    });

    // The app goes away after the first two events (progress + trigger at 1 s) …
    await waitFor('two events', () => before.length >= 2);
    await first.stop();
    // … the task finishes meanwhile (the poster keeps retrying) …
    const truth = await waitUntilFinished(client, taskId);
    expect(truth.state).toBe('succeeded');

    // … and a new receiver, with no memory, comes up on the same port.
    const after: TaskEvent[] = [];
    const gaps: SeqGap[] = [];
    const reports: ReconcileReport[] = [];
    const reconciler = new Reconciler({ servers: { sleeper: client } });
    const second = await startReceiver(
      resources,
      {
        secrets,
        onEvent: (event) => void after.push(event),
        onGap: async (gap) => {
          gaps.push(gap);
          reports.push(await reconciler.reconcile({ tracked: [gap] }));
        },
      },
      first.port,
    );
    expect(second.port).toBe(first.port);
    await waitFor('task_done at the new receiver', () => after.find((e) => e.type === 'task_done'), 20_000);
    await waitFor('the reconcile report', () => reports[0]);

    // Nothing was lost across the restart: together the two receivers saw every seq.
    const last = after[after.length - 1]!.seq;
    expect(new Set([...before, ...after].map((e) => e.seq))).toEqual(new Set(range(last)));
    expect(after.map((e) => e.seq)).toEqual(range(last).slice(after[0]!.seq - 1));
    // The new receiver noticed it had missed the start of the task …
    expect(gaps).toEqual([{ task_id: taskId, server: 'sleeper', expected: 1, got: after[0]!.seq }]);
    expect(after[0]!.seq).toBeGreaterThanOrEqual(2);
    // … and reconciling gave the server's truth: the task's final state from get_task.
    const report = reports[0]!;
    expect(report.errors).toEqual([]);
    expect(report.lost).toEqual([]);
    expect(report.unresolved).toEqual([]);
    expect(report.running.map((t) => t.task_id)).not.toContain(taskId);
    // (get_task's MCP answer adds feed_cursor, the event-feed cursor, after the TaskInfo fields.)
    const { feed_cursor: feedCursor, ...truthInfo } = truth as typeof truth & { feed_cursor?: number };
    expect(typeof feedCursor).toBe('number');
    expect(report.tasks.get(taskId)?.toJSON()).toEqual(truthInfo);
    expect(report.tasks.get(taskId)?.result).toEqual({ slept_s: 3 });
  });
});
