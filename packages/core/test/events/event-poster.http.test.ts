import { EventPoster, type EventPosterOptions, verify } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { laneOf } from '../../src/events/event-queue.js';
import {
  type ReceivedRequest,
  TestServer,
  advanceToNextTimer,
  makeEvent,
  turns,
  until,
} from './test-helpers.js';

const SECRET = 's3cr3t';
const T0 = Date.UTC(2026, 0, 1);

describe('EventPoster over HTTP (real local server)', () => {
  let server: TestServer;
  let poster: EventPoster | undefined;
  let rejections: unknown[];
  const onRejection = (reason: unknown) => rejections.push(reason);

  beforeAll(() => {
    process.on('unhandledRejection', onRejection);
  });
  afterAll(() => {
    process.off('unhandledRejection', onRejection);
  });
  beforeEach(async () => {
    rejections = [];
    server = await TestServer.start();
  });
  afterEach(async () => {
    await poster?.aclose({ timeoutMs: 0 });
    poster = undefined;
    await server.close();
    await turns();
    expect(rejections).toEqual([]);
  });

  function makePoster(
    options: Partial<EventPosterOptions> & { clock?: ManualClock; timeoutMs?: number } = {},
  ) {
    const clock = options.clock ?? new ManualClock(T0);
    const logger = options.logger ?? new MemoryLogger();
    const transport = new HttpEventTransport({
      url: server.url,
      secret: SECRET,
      serverName: 'navigation',
      clock,
      timeoutMs: options.timeoutMs,
    });
    poster = new EventPoster({ serverName: 'navigation', transport, ...options, clock, logger });
    return { poster, clock, logger: logger as MemoryLogger };
  }

  const isValid = (r: ReceivedRequest, nowMs: number) =>
    verify(SECRET, r.headers['x-rvc-timestamp'] as string, r.body, r.headers['x-rvc-signature'] as string, {
      nowMs,
    });

  it('delivers a signed event the receiver can verify', async () => {
    const { poster, clock } = makePoster();
    const event = makeEvent('nav-7f3a2b', 1);
    poster.post(event);
    expect(await poster.flush()).toBe(true);
    const [req] = server.requests;
    expect(req!.headers['x-rvc-server']).toBe('navigation');
    expect(req!.body.toString('utf8')).toBe(JSON.stringify(event));
    expect(isValid(req!, clock.now())).toBe(true);
    expect(
      verify(
        'other',
        req!.headers['x-rvc-timestamp'] as string,
        req!.body,
        req!.headers['x-rvc-signature'] as string,
        { nowMs: clock.now() },
      ),
    ).toBe(false);
    expect(poster.stats).toMatchObject({ accepted: 1, delivered: 1, retried: 0 });
  });

  it('retries on 500 then succeeds, re-signing each attempt with a fresh timestamp', async () => {
    server.reply = (_r, i) => ({ status: i < 2 ? 500 : 200 });
    const { poster, clock } = makePoster({ retryDelaysMs: [2000, 3000] });
    poster.post(makeEvent('nav-1', 1));
    while (poster.stats.delivered === 0) {
      await until(() => clock.pending > 0 || poster.stats.delivered > 0, 'a retry timer');
      await advanceToNextTimer(clock);
    }
    const stamps = server.requests.map((r) => Number(r.headers['x-rvc-timestamp']));
    expect(stamps).toEqual([T0 / 1000, T0 / 1000 + 2, T0 / 1000 + 5]);
    expect(server.requests.every((r) => isValid(r, clock.now()))).toBe(true);
    expect(new Set(server.requests.map((r) => r.headers['x-rvc-signature'])).size).toBe(3);
    expect(new Set(server.requests.map((r) => r.body.toString())).size).toBe(1);
    expect(poster.stats).toMatchObject({ delivered: 1, retried: 2, dropped: 0 });
  });

  it('gives up after the 10-minute cap and logs one error naming the event', async () => {
    server.reply = () => ({ status: 500 });
    const { poster, clock, logger } = makePoster();
    const event = makeEvent('nav-7f3a2b', 4, 'trigger_fired');
    poster.post(event);
    while (poster.stats.dropped === 0) {
      await until(() => clock.pending > 0 || poster.stats.dropped > 0, 'a retry timer or the drop');
      await advanceToNextTimer(clock);
    }
    expect(server.requests).toHaveLength(24);
    expect(clock.now() - T0).toBe(600_000);
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.meta).toMatchObject({
      event_id: event.event_id,
      task_id: 'nav-7f3a2b',
      seq: 4,
      type: 'trigger_fired',
      last_error: 'HTTP 500',
    });
    expect(poster.stats).toMatchObject({ delivered: 0, dropped: 1, retried: 23, queueDepth: 0 });
  });

  it('honours Retry-After from the server', async () => {
    server.reply = (_r, i) => (i === 0 ? { status: 503, headers: { 'Retry-After': '12' } } : { status: 202 });
    const { poster, clock } = makePoster();
    poster.post(makeEvent('nav-1'));
    await until(() => clock.pending > 0, 'the retry timer');
    expect(clock.nextDue()! - clock.now()).toBe(12_000);
    await clock.advance(11_999);
    expect(server.requests).toHaveLength(1);
    await clock.advance(1);
    expect(await poster.flush()).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps per-task seq order under many concurrent posts and intermittent failures', async () => {
    const seen = new Set<unknown>();
    const accepted: Record<string, unknown>[] = [];
    server.reply = (r) => {
      // Fail the first attempt of every third seq.
      const retry = Number(r.json!.seq) % 3 === 0 && !seen.has(r.json!.event_id);
      seen.add(r.json!.event_id);
      if (!retry) accepted.push(r.json!);
      return { status: retry ? 500 : 200 };
    };
    const { poster, clock } = makePoster();
    const tasks = Array.from({ length: 12 }, (_, i) => `task-${i}`);
    const perTask = 15;
    await Promise.all(
      tasks.map(async (task) => {
        for (let seq = 1; seq <= perTask; seq += 1) {
          poster.post(makeEvent(task, seq));
          if (seq % 4 === 0) await turns(1);
        }
      }),
    );
    // Retries wait on the manual clock: drive it until everything is delivered.
    while (poster.stats.delivered < tasks.length * perTask) {
      await until(() => clock.pending > 0 || poster.stats.queueDepth === 0, 'progress');
      await advanceToNextTimer(clock);
    }
    for (const task of tasks) {
      const delivered = accepted.filter((b) => b.task_id === task).map((b) => b.seq);
      expect(delivered).toEqual(Array.from({ length: perTask }, (_, i) => i + 1));
    }
    // Every attempt of an event came before any attempt of the next event of its task.
    for (const task of tasks) {
      const seqs = server.requests.filter((r) => r.json!.task_id === task).map((r) => Number(r.json!.seq));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
    expect(poster.stats).toMatchObject({
      delivered: tasks.length * perTask,
      retried: tasks.length * 5,
      dropped: 0,
    });
  });

  it('does not let a failing task block a task in another lane, while lanes: 1 does', async () => {
    const bad = 'nav-aaaaaa';
    let good = 'nav-b00000';
    for (let i = 0; laneOf(good, 8) === laneOf(bad, 8); i += 1) good = `nav-b${i}`;
    server.reply = (r) => ({ status: r.json!.task_id === bad ? 500 : 200 });

    const eight = makePoster();
    eight.poster.post(makeEvent(bad, 1));
    eight.poster.post(makeEvent(good, 1));
    await until(
      () => eight.poster.stats.delivered === 1 && eight.poster.stats.retried === 1,
      'the good task delivered, the bad one failing, with 8 lanes',
    );
    expect(server.bodies(good)).toHaveLength(1);
    expect(eight.poster.stats).toMatchObject({ delivered: 1, queueDepth: 1 });
    await eight.poster.aclose({ timeoutMs: 0 });

    server.requests.length = 0;
    const one = makePoster({ lanes: 1 });
    one.poster.post(makeEvent(bad, 1));
    one.poster.post(makeEvent(good, 1));
    await until(() => one.poster.stats.retried === 1, 'the first failure with 1 lane');
    await turns(10);
    expect(server.bodies(good)).toHaveLength(0);
    server.reply = () => ({ status: 200 });
    await one.clock.advance(500);
    expect(await one.poster.flush()).toBe(true);
    expect(server.bodies().map((b) => b.task_id)).toEqual([bad, bad, good]);
  });

  it('coalesces progress first when the queue is full and keeps terminal events', async () => {
    server.reply = (_r, i) => (i === 0 ? 'hang' : { status: 200 });
    const { poster, logger } = makePoster({ lanes: 1, maxQueue: 2, timeoutMs: 60_000 });
    const first = makeEvent('nav-1', 1);
    poster.post(first);
    await until(() => server.requests.length === 1, 'the first request');
    const p2 = makeEvent('nav-1', 2);
    const done = makeEvent('nav-1', 4, 'task_done');
    poster.post(p2);
    poster.post(makeEvent('nav-1', 3));
    poster.post(done);
    expect(logger.at('warn', 'coalesced').map((e) => e.meta.event_id)).toEqual([p2.event_id]);
    expect(logger.at('error')).toHaveLength(0);
    expect(poster.stats).toMatchObject({ accepted: 4, dropped: 0, coalesced: 1, queueDepth: 3 });
    await poster.aclose({ timeoutMs: 0 });
  });

  it('aclose() flushes what it can, then reports the rest as unflushed', async () => {
    server.reply = (r) => ({ status: r.json!.task_id === 'stuck' ? 500 : 200 });
    const { poster, clock, logger } = makePoster({ lanes: 1 });
    poster.post(makeEvent('ok-1', 1));
    poster.post(makeEvent('stuck', 1));
    poster.post(makeEvent('ok-2', 1));
    const closing = poster.aclose({ timeoutMs: 3000 });
    poster.post(makeEvent('late', 1));
    await until(() => poster.stats.retried === 1, 'the stuck event failing');
    await clock.advance(3000);
    await expect(closing).resolves.toEqual({ delivered: 1, dropped: 1, unflushed: 2 });
    expect(server.bodies('late')).toHaveLength(0);
    expect(logger.at('error', 'could not flush 2 events')).toHaveLength(1);
    expect(logger.at('warn', 'after the poster was closed')).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });
});
