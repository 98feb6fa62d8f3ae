import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver, type EventReceiver, type SeqGap } from '@robot-mcp-kit/receiver';
import {
  type Answer,
  type Running,
  SECRETS,
  listen,
  makeEvent,
  postEvent,
  waitFor,
} from '../receiver-test.helpers.js';

describe('event receiver seq tracking', () => {
  let clock: ManualClock;
  let receiver: EventReceiver;
  let server: Running;
  let delivered: { seq: number; task: string; late: boolean }[];
  let gaps: SeqGap[];
  let logger: MemoryLogger;
  let refuseSeq: number | undefined;
  /** The payload `onEvent` got, by `task_id:seq`. */
  let payloads: Map<string, unknown>;

  const start = async (
    options: { holdMs?: number; maxTasks?: number; finishedTtlS?: number } = {},
  ): Promise<void> => {
    receiver = createEventReceiver({
      secrets: SECRETS,
      onEvent: (event, context) => {
        if (event.seq === refuseSeq) throw new Error('not now');
        delivered.push({ seq: event.seq, task: event.task_id, late: context.late });
        payloads.set(`${event.task_id}:${event.seq}`, event.payload);
      },
      onGap: (gap) => {
        gaps.push(gap);
      },
      inOrder: options.holdMs === undefined ? undefined : { holdMs: options.holdMs },
      tracking: { maxTasks: options.maxTasks, finishedTtlS: options.finishedTtlS },
      clock,
      logger,
    });
    server = await listen(receiver.handler);
  };

  const post = (seq: number, overrides: Partial<Parameters<typeof makeEvent>[0]> = {}): Promise<Answer> =>
    postEvent(server.url, makeEvent({ seq, ...overrides }), { nowMs: clock.now() });

  beforeEach(() => {
    clock = new ManualClock(Date.now());
    delivered = [];
    gaps = [];
    logger = new MemoryLogger();
    refuseSeq = undefined;
    payloads = new Map();
  });

  afterEach(async () => {
    await receiver.close();
    await server.close();
  });

  describe('coalesced progress (rvc_coalesced_seqs)', () => {
    it('accounts for the seqs a marker names instead of reporting a gap', async () => {
      await start();
      await post(1);
      await post(5, { payload: { percent: 50, rvc_coalesced_seqs: [[2, 4]] } });
      await post(6, { type: 'task_done', payload: { result: {} } });
      expect(gaps).toEqual([]);
      expect(delivered.map((d) => d.seq)).toEqual([1, 5, 6]);
      expect(receiver.stats()).toMatchObject({ gaps: 0, coalesced: 3 });
    });

    it('still reports the seqs no marker names, and ignores markers it cannot trust', async () => {
      await start();
      await post(1);
      // 2 is named, 3 is not (a real loss), 4 is named: the gap starts at seq 3.
      await post(5, {
        type: 'trigger_fired',
        payload: {
          trigger: {},
          rvc_coalesced_seqs: [
            [2, 2],
            [4, 4],
          ],
        },
      });
      expect(gaps).toEqual([expect.objectContaining({ expected: 3, got: 5 })]);
      // A malformed marker names nothing.
      await post(8, { payload: { rvc_coalesced_seqs: 'everything' } });
      expect(gaps.map((g) => [g.expected, g.got])).toEqual([
        [3, 5],
        [6, 8],
      ]);
    });

    it('honours a marker on a terminal event like one on progress', async () => {
      await start();
      await post(1);
      await post(2, { type: 'trigger_fired', payload: { trigger: {} } });
      // The task's newest progress (3) was coalesced right before its end: task_done names it.
      const done = await post(4, {
        type: 'task_done',
        payload: { result: { ok: true }, rvc_coalesced_seqs: [[3, 3]] },
      });
      expect(done.status).toBe(200);
      const failed = makeEvent({
        task_id: 'slee-000002',
        seq: 9,
        type: 'task_failed',
        payload: {
          error_code: 'E',
          message: 'm',
          recoverable: false,
          suggestions: [],
          rvc_coalesced_seqs: [[1, 8]],
        },
      });
      expect((await postEvent(server.url, failed, { nowMs: clock.now() })).status).toBe(200);
      expect(gaps).toEqual([]);
      expect(receiver.stats()).toMatchObject({ gaps: 0, coalesced: 9 });
      expect(receiver.openTasks()).toEqual([]);
      // The key reaches onEvent as sent, for every event type (the app strips it if it compares payloads).
      expect(payloads.get('slee-000001:4')).toEqual({ result: { ok: true }, rvc_coalesced_seqs: [[3, 3]] });
    });

    it('still reports a gap on a terminal event for the seqs its marker does not name', async () => {
      await start();
      await post(1);
      await post(5, {
        type: 'task_failed',
        payload: { error_code: 'E', message: 'm', rvc_coalesced_seqs: [[3, 4]] },
      });
      expect(gaps.map((g) => [g.expected, g.got])).toEqual([[2, 5]]);
      expect(receiver.stats()).toMatchObject({ gaps: 1, coalesced: 2 });
    });

    it('lets an early event through once the marked event arrives (in-order mode)', async () => {
      await start({ holdMs: 5000 });
      await post(1);
      await post(4, { payload: { rvc_coalesced_seqs: [[2, 3]] } });
      expect(gaps).toEqual([]);
      expect(delivered.map((d) => d.seq)).toEqual([1, 4]);
    });
  });

  describe('default mode (deliver as they come)', () => {
    it('reports no gap for 1, 2, 3', async () => {
      await start();
      for (const seq of [1, 2, 3]) expect((await post(seq)).status).toBe(200);
      expect(delivered.map((d) => d.seq)).toEqual([1, 2, 3]);
      expect(gaps).toEqual([]);
    });

    it('reports a gap with task, server, expected and got, and still delivers', async () => {
      await start();
      await post(1);
      await post(4);
      expect(gaps).toEqual([{ task_id: 'slee-000001', server: 'sleeper', expected: 2, got: 4 }]);
      expect(delivered.map((d) => d.seq)).toEqual([1, 4]);
      expect(receiver.stats().gaps).toBe(1);
      expect(logger.at('warn', 'seq gap')).toHaveLength(1);
    });

    it('reports a task first seen after seq 1 (receiver restarted mid-task)', async () => {
      await start();
      await post(5);
      expect(gaps).toEqual([{ task_id: 'slee-000001', server: 'sleeper', expected: 1, got: 5 }]);
    });

    it('delivers a late event as late and does not move the expected seq back', async () => {
      await start();
      await post(1);
      await post(3);
      await post(2);
      await post(4);
      expect(delivered).toEqual([
        { seq: 1, task: 'slee-000001', late: false },
        { seq: 3, task: 'slee-000001', late: false },
        { seq: 2, task: 'slee-000001', late: true },
        { seq: 4, task: 'slee-000001', late: false },
      ]);
      expect(gaps).toHaveLength(1);
      expect(receiver.stats().late).toBe(1);
    });

    it('tracks each task separately', async () => {
      await start();
      await post(1, { task_id: 'a' });
      await post(1, { task_id: 'b' });
      await post(2, { task_id: 'a' });
      await post(3, { task_id: 'b' });
      expect(gaps).toEqual([{ task_id: 'b', server: 'sleeper', expected: 2, got: 3 }]);
    });

    it('reports a gap once even when the event after it is refused and retried', async () => {
      await start();
      await post(1);
      refuseSeq = 4;
      const event = makeEvent({ seq: 4 });
      expect((await postEvent(server.url, event, { nowMs: clock.now() })).status).toBe(500);
      refuseSeq = undefined;
      expect((await postEvent(server.url, event, { nowMs: clock.now() })).status).toBe(200);
      expect(gaps).toEqual([{ task_id: 'slee-000001', server: 'sleeper', expected: 2, got: 4 }]);
    });

    it('survives an onGap that throws or rejects', async () => {
      receiver = createEventReceiver({
        secrets: SECRETS,
        onEvent: () => undefined,
        onGap: (gap) => {
          if (gap.got === 3) throw new Error('sync boom');
          return Promise.reject(new Error('async boom'));
        },
        clock,
        logger,
      });
      server = await listen(receiver.handler);
      expect((await post(3)).status).toBe(200);
      expect((await post(9)).status).toBe(200);
      await waitFor(() => logger.at('error', 'onGap failed').length === 2);
    });
  });

  describe('in-order mode', () => {
    it('holds an early event until the missing one comes, then delivers in seq order', async () => {
      await start({ holdMs: 2000 });
      await post(1);
      const third = post(3);
      await waitFor(() => receiver.stats().held === 1);
      expect(delivered.map((d) => d.seq)).toEqual([1]);
      const second = post(2);
      expect((await second).status).toBe(200);
      expect((await third).status).toBe(200);
      expect(delivered.map((d) => d.seq)).toEqual([1, 2, 3]);
      expect(gaps).toEqual([]);
      expect(receiver.stats().held).toBe(0);
    });

    it('after the window, delivers the held events in seq order with the gap reported', async () => {
      await start({ holdMs: 2000 });
      await post(1);
      const fifth = post(5);
      const fourth = post(4);
      await waitFor(() => receiver.stats().held === 2);
      await clock.advance(1999);
      expect(delivered.map((d) => d.seq)).toEqual([1]);
      await clock.advance(1);
      expect((await fifth).status).toBe(200);
      expect((await fourth).status).toBe(200);
      expect(delivered.map((d) => d.seq)).toEqual([1, 4, 5]);
      expect(gaps).toEqual([{ task_id: 'slee-000001', server: 'sleeper', expected: 2, got: 4 }]);
      // 2 and 3 turn up late: delivered, marked late, nothing moves back.
      await post(2);
      await post(6);
      expect(delivered.map((d) => [d.seq, d.late])).toEqual([
        [1, false],
        [4, false],
        [5, false],
        [2, true],
        [6, false],
      ]);
    });

    it('reports each hole among the held events', async () => {
      await start({ holdMs: 100 });
      const answers = [post(3), post(6)];
      await waitFor(() => receiver.stats().held === 2);
      await clock.advance(100);
      await Promise.all(answers);
      expect(gaps.map((g) => [g.expected, g.got])).toEqual([
        [1, 3],
        [4, 6],
      ]);
    });

    it('answers 500 for a held event onEvent refuses, and delivers the rest', async () => {
      await start({ holdMs: 100 });
      refuseSeq = 3;
      const answers = [post(3), post(4)];
      await waitFor(() => receiver.stats().held === 2);
      await clock.advance(100);
      expect((await Promise.all(answers)).map((a) => a.status)).toEqual([500, 200]);
    });

    it('close() delivers the held events at once', async () => {
      await start({ holdMs: 60_000 });
      const held = post(2);
      await waitFor(() => receiver.stats().held === 1);
      await receiver.close();
      expect((await held).status).toBe(200);
      expect(gaps).toHaveLength(1);
    });
  });

  describe('bounded tracking', () => {
    it('lists open tasks and drops finished ones from the list', async () => {
      await start();
      await post(1, { task_id: 'a', tool: 'navigate_to' });
      await post(1, { task_id: 'b' });
      await post(2, { task_id: 'b', type: 'task_done', payload: { result: {} } });
      expect(receiver.openTasks()).toEqual([{ server: 'sleeper', task_id: 'a', tool: 'navigate_to' }]);
      expect(receiver.stats().trackedTasks).toBe(2);
    });

    it('forgets a finished task after finishedTtlS', async () => {
      await start({ finishedTtlS: 60 });
      await post(1, { task_id: 'done', type: 'task_failed', payload: { error_code: 'X', message: 'x' } });
      await clock.advance(59_000);
      await post(1, { task_id: 'other' });
      expect(receiver.stats().trackedTasks).toBe(2);
      await clock.advance(1_000);
      await post(2, { task_id: 'other' });
      expect(receiver.stats().trackedTasks).toBe(1);
    });

    it('keeps at most maxTasks tasks, least recently seen out first', async () => {
      await start({ maxTasks: 2 });
      await post(1, { task_id: 'a' });
      await post(1, { task_id: 'b' });
      await post(2, { task_id: 'a' });
      await post(1, { task_id: 'c' });
      expect(receiver.openTasks().map((t) => t.task_id)).toEqual(['a', 'c']);
      // b was forgotten: its next event looks like a task first seen mid-way.
      await post(2, { task_id: 'b' });
      expect(gaps).toEqual([{ task_id: 'b', server: 'sleeper', expected: 1, got: 2 }]);
    });

    it('never evicts a task with held events', async () => {
      await start({ maxTasks: 1, holdMs: 1000 });
      const held = post(2, { task_id: 'a' });
      await waitFor(() => receiver.stats().held === 1);
      await post(1, { task_id: 'b' });
      expect(receiver.stats().trackedTasks).toBe(2);
      await post(1, { task_id: 'a' });
      expect((await held).status).toBe(200);
      expect(delivered.filter((d) => d.task === 'a').map((d) => d.seq)).toEqual([1, 2]);
    });
  });
});
