import {
  ConfigError,
  type DeliveryOutcome,
  EventPoster,
  type EventPosterOptions,
  type EventTransport,
  type TaskEvent,
} from '@robot-mcp-kit/core';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { laneOf } from '../../src/events/event-queue.js';
import { advanceToNextTimer, makeEvent, turns, until } from './test-helpers.js';

const T0 = Date.UTC(2026, 0, 1);

function setup(options: Partial<EventPosterOptions> = {}) {
  const clock = new ManualClock(T0);
  const logger = new MemoryLogger();
  const transport = new InMemoryEventTransport();
  const poster = new EventPoster({ serverName: 'navigation', transport, clock, logger, ...options });
  return { clock, logger, transport, poster };
}

/** A handler that holds every attempt until `release()`; later attempts then pass at once. */
function gate() {
  let open = false;
  const waiting: (() => void)[] = [];
  return {
    handler: async (): Promise<DeliveryOutcome> => {
      if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
      return { ok: true, status: 200 };
    },
    get held(): number {
      return waiting.length;
    },
    release(): void {
      open = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/** Two task ids whose events use different lanes (of `lanes`). */
function taskIdsInDifferentLanes(lanes: number): [string, string] {
  const a = 'nav-aaaaaa';
  for (let i = 0; ; i += 1) {
    const b = `nav-b${i.toString(16).padStart(5, '0')}`;
    if (laneOf(b, lanes) !== laneOf(a, lanes)) return [a, b];
  }
}

describe('EventPoster options', () => {
  const transport = new InMemoryEventTransport();
  it.each([
    ['serverName', { serverName: '' }],
    ['transport', { transport: {} as EventTransport }],
    ['maxQueue', { maxQueue: 0 }],
    ['maxQueue', { maxQueue: 1.5 }],
    ['lanes', { lanes: 0 }],
    ['retryDelaysMs', { retryDelaysMs: [500, -1] }],
    ['retryDelaysMs', { retryDelaysMs: 'fast' as unknown as number[] }],
    ['retryEveryMs', { retryEveryMs: 0 }],
    ['maxRetryMs', { maxRetryMs: Number.NaN }],
  ])('rejects a bad %s with a ConfigError naming it', (variable, bad) => {
    const make = () =>
      new EventPoster({ serverName: 'nav', transport, ...(bad as Partial<EventPosterOptions>) });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(new RegExp(`^${variable}: `));
    try {
      make();
    } catch (err) {
      expect((err as ConfigError).variable).toBe(variable);
    }
  });

  it('rejects a missing options object', () => {
    expect(() => new EventPoster(undefined as unknown as EventPosterOptions)).toThrow(ConfigError);
  });

  it('accepts valid options', () => {
    const poster = new EventPoster({ serverName: 'nav', transport, lanes: 1, maxQueue: 1, maxRetryMs: 0 });
    expect(poster.stats).toEqual({
      accepted: 0,
      delivered: 0,
      retried: 0,
      dropped: 0,
      coalesced: 0,
      queueDepth: 0,
      queueBytes: 0,
    });
    expect(poster.target).toBe('memory');
  });
});

describe('EventPoster delivery', () => {
  it('delivers in post order per task, with the body serialized once at post time', async () => {
    const { poster, transport } = setup();
    const events = [makeEvent('nav-1', 1), makeEvent('nav-1', 2), makeEvent('nav-1', 3, 'task_done')];
    const expectedBodies = events.map((e) => JSON.stringify(e));
    for (const e of events) poster.post(e);
    events[0]!.payload = { mutated: true };
    expect(poster.stats.queueDepth).toBe(3);
    expect(transport.attempts).toHaveLength(0); // post() never sends by itself
    expect(await poster.flush()).toBe(true);
    expect(transport.deliveries.map((d) => d.body)).toEqual(expectedBodies);
    expect(transport.deliveries.map((d) => d.attempt)).toEqual([1, 1, 1]);
    expect(poster.stats).toEqual({
      accepted: 3,
      delivered: 3,
      retried: 0,
      dropped: 0,
      coalesced: 0,
      queueDepth: 0,
      queueBytes: 0,
    });
  });

  it('never throws from post(), even for events that cannot be serialized', () => {
    const { poster, logger } = setup();
    const bad = makeEvent('nav-1');
    bad.payload = { big: 10n as unknown as number };
    expect(() => poster.post(bad)).not.toThrow();
    expect(() => poster.post(null as unknown as TaskEvent)).not.toThrow();
    expect(poster.stats.dropped).toBe(1);
    expect(poster.stats.accepted).toBe(0);
    expect(logger.at('error', 'cannot be serialized')).toHaveLength(1);
    expect(logger.at('error')).toHaveLength(2);
  });

  it('retries after 0.5 s, 2 s, 8 s, then every 30 s', async () => {
    const { poster, transport, clock } = setup();
    const times: number[] = [];
    transport.setHandler(() => {
      times.push(clock.now() - T0);
      return times.length < 6 ? { ok: false, error: 'HTTP 500', status: 500 } : { ok: true };
    });
    poster.post(makeEvent('nav-1'));
    await until(() => times.length === 1, 'first attempt');
    while (poster.stats.delivered === 0) {
      await until(() => clock.pending > 0 || poster.stats.delivered > 0, 'a retry timer');
      await advanceToNextTimer(clock);
    }
    expect(times).toEqual([0, 500, 2500, 10_500, 40_500, 70_500]);
    expect(transport.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(poster.stats).toMatchObject({ delivered: 1, retried: 5, dropped: 0, queueDepth: 0 });
  });

  it('honours Retry-After within the schedule', async () => {
    const { poster, transport, clock } = setup();
    const retryAfter = [5000, 100, 120_000];
    transport.setHandler(() => {
      const ms = retryAfter.shift();
      return ms === undefined
        ? { ok: true }
        : { ok: false, status: 503, error: 'HTTP 503', retryAfterMs: ms };
    });
    poster.post(makeEvent('nav-1'));
    const waits: number[] = [];
    while (poster.stats.delivered === 0) {
      await until(() => clock.pending > 0 || poster.stats.delivered > 0, 'a retry timer');
      const step = await advanceToNextTimer(clock);
      if (step > 0) waits.push(step);
    }
    // max(500, 5000) = 5000; max(2000, 100) = 2000; min(max(8000, 120000), 30000) = 30000
    expect(waits).toEqual([5000, 2000, 30_000]);
  });

  it('gives up at the cap measured from post time, with one error naming the event', async () => {
    const { poster, transport, clock, logger } = setup();
    transport.setHandler(() => ({ ok: false, status: 500, error: 'HTTP 500' }));
    const event = makeEvent('nav-7f3a2b', 4);
    const times: number[] = [];
    transport.setHandler(() => {
      times.push(clock.now() - T0);
      return { ok: false, status: 500, error: 'HTTP 500' };
    });
    poster.post(event);
    while (poster.stats.dropped === 0) {
      await until(() => clock.pending > 0 || poster.stats.dropped > 0, 'a retry timer or the drop');
      await advanceToNextTimer(clock);
    }
    expect(times).toHaveLength(24);
    expect(times.at(-2)).toBe(580_500);
    expect(times.at(-1)).toBe(600_000); // the last attempt lands exactly on the cap
    expect(poster.stats).toMatchObject({ accepted: 1, delivered: 0, retried: 23, dropped: 1, queueDepth: 0 });
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(event.event_id);
    expect(errors[0]!.message).toContain('nav-7f3a2b');
    expect(errors[0]!.message).toContain('HTTP 500');
    expect(errors[0]!.meta).toMatchObject({
      event_id: event.event_id,
      task_id: 'nav-7f3a2b',
      seq: 4,
      type: 'progress',
      reason: 'retry_cap',
      last_error: 'HTTP 500',
      attempts: 24,
      server: 'navigation',
    });
    // No retry timer is left; the one pending timer is the drop summary's 10 s window.
    expect(clock.pending).toBe(1);
    await clock.advance(10_000);
    expect(clock.pending).toBe(0);
    expect(logger.at('error')).toHaveLength(1); // nothing more was dropped: no summary line
  });

  it('drops an event that reaches the head of its lane past its cap without sending it', async () => {
    const { poster, transport, clock, logger } = setup({ lanes: 1, maxRetryMs: 60_000 });
    const held = gate();
    transport.setHandler(held.handler);
    const first = makeEvent('nav-1', 1);
    const late = makeEvent('nav-1', 2);
    poster.post(first);
    poster.post(late);
    await until(() => held.held === 1, 'the first attempt');
    await clock.advance(61_000);
    held.release();
    expect(await poster.flush()).toBe(true);
    expect(transport.events.map((e) => e.event_id)).toEqual([first.event_id]);
    expect(transport.attempts).toHaveLength(1);
    expect(poster.stats).toMatchObject({ delivered: 1, dropped: 1 });
    expect(logger.at('error')[0]!.meta).toMatchObject({
      event_id: late.event_id,
      reason: 'retry_cap',
      seq: 2,
    });
  });

  it('treats throwing, rejecting and malformed transports as failed attempts, without unhandled rejections', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const clock = new ManualClock(T0);
      const logger = new MemoryLogger();
      let calls = 0;
      const transport: EventTransport = {
        description: 'broken',
        send: (() => {
          calls += 1;
          if (calls === 1) throw new Error('sync boom');
          if (calls === 2) return Promise.reject(new Error('async boom'));
          if (calls === 3) return Promise.resolve(undefined);
          return Promise.resolve({ ok: true });
        }) as EventTransport['send'],
        close: () => Promise.reject(new Error('close boom')),
      };
      const poster = new EventPoster({ serverName: 'nav', transport, clock, logger });
      poster.post(makeEvent('nav-1'));
      while (poster.stats.delivered === 0) {
        await until(() => clock.pending > 0 || poster.stats.delivered > 0, 'a retry timer');
        await advanceToNextTimer(clock);
      }
      expect(poster.stats).toMatchObject({ delivered: 1, retried: 3 });
      const errors = logger.entries.filter((e) => e.message.includes('retry')).map((e) => e.meta.error);
      expect(errors).toEqual([
        'transport threw: sync boom',
        'transport threw: async boom',
        'transport returned no outcome',
      ]);
      await expect(poster.aclose()).resolves.toEqual({ delivered: 1, dropped: 0, unflushed: 0 });
      expect(logger.at('warn', 'failed to close')).toHaveLength(1);
      await turns();
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});

describe('EventPoster internal failures', () => {
  it('gives an event up when the clock cannot schedule its retry, and keeps the lane moving', async () => {
    const logger = new MemoryLogger();
    const clock = {
      now: () => T0,
      setTimeout: () => {
        throw new Error('no timers today');
      },
      clearTimeout: () => undefined,
    };
    const transport = new InMemoryEventTransport().failNext(1);
    const poster = new EventPoster({ serverName: 'nav', transport, clock, logger, lanes: 1 });
    poster.post(makeEvent('nav-1', 1));
    poster.post(makeEvent('nav-1', 2));
    expect(await poster.flush()).toBe(true);
    expect(poster.stats).toMatchObject({ delivered: 1, dropped: 1, queueDepth: 0 });
    expect(transport.events.map((e) => e.seq)).toEqual([2]);
    expect(logger.at('error', 'internal error')[0]!.meta).toMatchObject({ error: 'no timers today' });
  });
});

describe('EventPoster lanes', () => {
  it('lets another lane deliver while one task keeps failing', async () => {
    const [bad, good] = taskIdsInDifferentLanes(8);
    const { poster, transport } = setup();
    transport.setHandler((d) => (d.event.task_id === bad ? { ok: false, error: 'HTTP 500' } : { ok: true }));
    poster.post(makeEvent(bad, 1));
    poster.post(makeEvent(bad, 2));
    poster.post(makeEvent(good, 1));
    await until(() => transport.events.length === 1, 'the good task delivered');
    expect(transport.events[0]!.task_id).toBe(good);
    expect(poster.stats.queueDepth).toBe(2);
  });

  it('with lanes: 1 keeps one global FIFO, so a failing event blocks the rest', async () => {
    const [bad, good] = taskIdsInDifferentLanes(8);
    const { poster, transport, clock } = setup({ lanes: 1 });
    transport.failNext(1);
    poster.post(makeEvent(bad, 1));
    poster.post(makeEvent(good, 1));
    await until(() => poster.stats.retried === 1, 'the first failure');
    await turns(10);
    expect(transport.attempts.map((d) => d.event.task_id)).toEqual([bad]);
    await clock.advance(500);
    expect(await poster.flush()).toBe(true);
    expect(transport.events.map((e) => e.task_id)).toEqual([bad, good]);
  });

  it('spreads task ids over the lanes and keeps a task on one lane', () => {
    const used = new Set(Array.from({ length: 200 }, (_, i) => laneOf(`task-${i}`, 8)));
    expect(used.size).toBe(8);
    expect(laneOf('nav-7f3a2b', 8)).toBe(laneOf('nav-7f3a2b', 8));
    expect(laneOf('nav-7f3a2b', 1)).toBe(0);
  });
});

/** Records every drop of `poster` as `event_id:reason`. */
function recordDrops(poster: EventPoster): string[] {
  const drops: string[] = [];
  poster.subscribeDrops((event, reason) => drops.push(`${event.event_id}:${reason}`));
  return drops;
}

describe('EventPoster bounded queue', () => {
  it('makes room with progress first (coalesced), then watch_event, trigger_fired, and terminal last', async () => {
    const { poster, transport } = setup({ lanes: 1, maxQueue: 4 });
    const drops = recordDrops(poster);
    const held = gate();
    transport.setHandler(held.handler);
    const inflight = makeEvent('t-0', 1, 'task_done');
    poster.post(inflight);
    await until(() => held.held === 1, 'the in-flight attempt');
    const p = makeEvent('t-1', 1, 'progress');
    const w = makeEvent('t-2', 1, 'watch_event');
    const t = makeEvent('t-3', 1, 'trigger_fired');
    [p, w, t].forEach((e) => poster.post(e));
    expect(poster.stats.queueDepth).toBe(4);
    const d1 = makeEvent('t-4', 1, 'task_done');
    const d2 = makeEvent('t-5', 1, 'task_failed');
    const d3 = makeEvent('t-6', 1, 'task_done');
    const d4 = makeEvent('t-9', 1, 'task_done');
    // maxQueue counts the waiting events: d1 still fits beside the one in flight.
    [d1, d2, d3, d4].forEach((e) => poster.post(e));
    // The in-flight event is never dropped; the waiting ones go in class order.
    expect(drops).toEqual([
      `${p.event_id}:coalesced`,
      `${w.event_id}:queue_full`,
      `${t.event_id}:queue_full`,
    ]);
    // Only terminal events wait now: an incoming progress event is the one that goes...
    const p2 = makeEvent('t-7', 1, 'progress');
    poster.post(p2);
    expect(drops.at(-1)).toBe(`${p2.event_id}:coalesced`);
    // ...and any other incoming event pushes out the oldest waiting terminal one.
    const w2 = makeEvent('t-8', 1, 'watch_event');
    poster.post(w2);
    expect(drops.at(-1)).toBe(`${d1.event_id}:queue_full`);
    expect(poster.stats).toMatchObject({ accepted: 10, dropped: 3, coalesced: 2, queueDepth: 5 });
    held.release();
    expect(await poster.flush()).toBe(true);
    expect(transport.events.map((e) => e.event_id)).toEqual(
      [inflight, d2, d3, d4, w2].map((e) => e.event_id),
    );
  });

  it('takes the oldest progress of any lane when the task has none waiting', async () => {
    const [a, b] = taskIdsInDifferentLanes(8);
    const { poster, transport } = setup({ maxQueue: 2 });
    const drops = recordDrops(poster);
    const held = gate();
    transport.setHandler(held.handler);
    poster.post(makeEvent(a, 1, 'task_done'));
    poster.post(makeEvent(b, 1, 'task_done'));
    await until(() => held.held === 2, 'both lanes in flight');
    const oldest = makeEvent(b, 2);
    poster.post(oldest);
    poster.post(makeEvent(a, 2, 'trigger_fired'));
    poster.post(makeEvent(a, 3, 'task_done'));
    expect(drops).toEqual([`${oldest.event_id}:coalesced`]);
    held.release();
    await poster.flush();
  });

  it('counts the events in flight beside maxQueue, at most one a lane', async () => {
    const { poster, transport } = setup({ lanes: 1, maxQueue: 1 });
    const drops = recordDrops(poster);
    const held = gate();
    transport.setHandler(held.handler);
    poster.post(makeEvent('t-1', 1, 'task_done'));
    await until(() => held.held === 1, 'in flight');
    poster.post(makeEvent('t-2', 1, 'task_done'));
    expect(drops).toEqual([]);
    const incoming = makeEvent('t-3', 1);
    poster.post(incoming);
    expect(drops).toEqual([`${incoming.event_id}:coalesced`]);
    expect(poster.stats).toMatchObject({ queueDepth: 2 });
    held.release();
    await poster.flush();
    expect(poster.stats).toMatchObject({ accepted: 3, delivered: 2, coalesced: 1, dropped: 0 });
  });

  it("coalesces a task's progress (newest wins) and marks the seqs on the event that follows", async () => {
    const { poster, transport } = setup({ lanes: 1, maxQueue: 3 });
    const held = gate();
    transport.setHandler(held.handler);
    poster.post(makeEvent('t-1', 1));
    await until(() => held.held === 1, 'seq 1 in flight');
    for (let seq = 2; seq <= 6; seq += 1) poster.post(makeEvent('t-1', seq));
    poster.post(makeEvent('t-1', 7, 'trigger_fired'));
    poster.post(makeEvent('t-1', 8));
    poster.post(makeEvent('t-1', 9, 'task_done'));
    held.release();
    expect(await poster.flush()).toBe(true);
    const sent = transport.bodies as { seq: number; type: string; payload: Record<string, unknown> }[];
    expect(sent.map((e) => `${e.seq}:${e.type}`)).toEqual([
      '1:progress',
      '7:trigger_fired',
      '8:progress',
      '9:task_done',
    ]);
    // The coalesced seqs ride on the next event of the task (here a trigger_fired): every seq
    // not sent is named exactly once.
    expect(sent[1]!.payload).toMatchObject({ rvc_coalesced_seqs: [[2, 6]] });
    expect(sent[2]!.payload.rvc_coalesced_seqs).toBeUndefined();
    expect(sent[3]!.payload.rvc_coalesced_seqs).toBeUndefined();
    // The event in flight counts beside maxQueue: the trigger and the terminal event fit.
    expect(poster.stats).toMatchObject({ accepted: 9, delivered: 4, coalesced: 5, dropped: 0 });
  });

  it('never drops a terminal event for room while a progress event is being sent', async () => {
    const { poster, transport } = setup({ lanes: 2, maxQueue: 2 });
    const drops = recordDrops(poster);
    const held = gate();
    transport.setHandler(held.handler);
    poster.post(makeEvent('a', 1));
    poster.post(makeEvent('b', 1));
    await until(() => held.held === 2, 'both progress events in flight');
    const done = [makeEvent('a', 2, 'task_done'), makeEvent('b', 2, 'task_done')];
    done.forEach((e) => poster.post(e));
    expect(drops).toEqual([]);
    // A full queue with no progress waiting: an incoming progress event is coalesced.
    poster.post(makeEvent('c', 1));
    expect(drops).toHaveLength(1);
    held.release();
    expect(await poster.flush()).toBe(true);
    expect(transport.events.filter((e) => e.type === 'task_done')).toHaveLength(2);
  });

  it('handles 10,000 tasks x 10 progress events within a 10,000-event queue', async () => {
    const { poster, transport } = setup({ logger: undefined, lanes: 8 });
    const held = gate();
    transport.setHandler(held.handler);
    const last: TaskEvent[] = [];
    for (let seq = 1; seq <= 10; seq += 1) {
      for (let task = 0; task < 10_000; task += 1) {
        const event = makeEvent(`task-${task}`, seq);
        poster.post(event);
        if (seq === 10) last.push(event);
      }
      if (seq === 1) await until(() => held.held === 8, 'every lane in flight');
    }
    expect(poster.stats).toMatchObject({
      accepted: 100_000,
      coalesced: 89_992,
      dropped: 0,
      queueDepth: 10_008, // 10,000 waiting + 8 in flight
    });
    held.release();
    expect(await poster.flush()).toBe(true);
    expect(poster.stats).toMatchObject({ delivered: 10_008, queueDepth: 0, queueBytes: 0 });
    const delivered = new Set(transport.events.map((e) => e.event_id));
    // Every task kept its newest progress event.
    expect(last.every((e) => delivered.has(e.event_id))).toBe(true);
  });
});

describe('EventPoster flush and aclose', () => {
  it('flush() resolves at once when idle, false at its deadline, true when done', async () => {
    const { poster, transport, clock } = setup();
    expect(await poster.flush(0)).toBe(true);
    transport.failNext(1);
    poster.post(makeEvent('nav-1'));
    expect(await poster.flush(0)).toBe(false);
    await until(() => poster.stats.retried === 1, 'the failure');
    const short = poster.flush(100);
    const long = poster.flush();
    await clock.advance(100);
    expect(await short).toBe(false);
    await clock.advance(400);
    expect(await long).toBe(true);
  });

  it('flush() waits only for events accepted before it', async () => {
    const { poster, transport } = setup({ lanes: 1 });
    const held = gate();
    transport.setHandler(held.handler);
    poster.post(makeEvent('nav-1', 1));
    const flushed = poster.flush();
    await until(() => held.held === 1, 'in flight');
    transport.setHandler(() => new Promise<DeliveryOutcome>(() => undefined)); // later ones hang forever
    poster.post(makeEvent('nav-1', 2));
    held.release();
    await expect(flushed).resolves.toBe(true);
    expect(poster.stats.queueDepth).toBe(1);
  });

  it('aclose() delivers what is queued, drops later posts, closes the transport and is idempotent', async () => {
    const { poster, transport, logger, clock } = setup();
    transport.failNext(1);
    poster.post(makeEvent('nav-1', 1));
    poster.post(makeEvent('nav-1', 2));
    const closing = poster.aclose();
    expect(poster.aclose()).toBe(closing);
    const late = makeEvent('nav-1', 3);
    poster.post(late);
    await until(() => clock.pending >= 2, 'the retry timer');
    await clock.advance(500);
    await expect(closing).resolves.toEqual({ delivered: 2, dropped: 1, unflushed: 0 });
    expect(transport.closed).toBe(true);
    expect(logger.at('warn', 'after the poster was closed')[0]!.meta).toMatchObject({
      event_id: late.event_id,
      reason: 'closed',
    });
    expect(poster.stats).toMatchObject({ accepted: 2, delivered: 2, dropped: 1, queueDepth: 0 });
    expect(logger.at('error')).toHaveLength(0);
    expect(clock.pending).toBe(0);
  });

  it('aclose() abandons what is left at its deadline with one error log', async () => {
    const { poster, transport, logger, clock } = setup();
    const [a, b] = taskIdsInDifferentLanes(8);
    transport.setHandler((d) => (d.event.task_id === a ? { ok: false, error: 'HTTP 500' } : { ok: true }));
    poster.post(makeEvent(a, 1));
    poster.post(makeEvent(a, 2));
    poster.post(makeEvent(b, 1));
    const outer = poster.flush();
    const closing = poster.aclose({ timeoutMs: 5000 });
    await until(() => poster.stats.delivered === 1 && poster.stats.retried === 1, 'b delivered, a failing');
    await clock.advance(5000);
    await expect(closing).resolves.toEqual({ delivered: 1, dropped: 0, unflushed: 2 });
    await expect(outer).resolves.toBe(false);
    const errors = logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe('could not flush 2 events');
    expect(errors[0]!.meta).toMatchObject({ unflushed: 2, delivered: 1, dropped: 0 });
    expect(poster.stats.queueDepth).toBe(0);
    expect(clock.pending).toBe(0);
    expect(transport.closed).toBe(true);
  });

  it('aclose({ timeoutMs: 0 }) abandons an in-flight event and ignores its late outcome', async () => {
    const { poster, transport, clock } = setup();
    const held = gate();
    transport.setHandler(held.handler);
    poster.post(makeEvent('nav-1'));
    await until(() => held.held === 1, 'in flight');
    await expect(poster.aclose({ timeoutMs: 0 })).resolves.toEqual({
      delivered: 0,
      dropped: 0,
      unflushed: 1,
    });
    held.release();
    await turns();
    expect(poster.stats).toMatchObject({ delivered: 0, queueDepth: 0 });
    expect(clock.pending).toBe(0);
  });
});
