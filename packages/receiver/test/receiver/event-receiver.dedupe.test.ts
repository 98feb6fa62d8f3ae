import { EventPoster, type TaskEvent } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import {
  type DedupeStore,
  type EventReceiver,
  InMemoryDedupeStore,
  createEventReceiver,
} from '@robot-mcp-kit/receiver';
import {
  type Running,
  SECRET,
  SECRETS,
  deferred,
  listen,
  makeEvent,
  postEvent,
  send,
  signedHeaders,
  waitFor,
} from '../receiver-test.helpers.js';

describe('event receiver dedupe', () => {
  let clock: ManualClock;
  let receiver: EventReceiver;
  let server: Running;
  let calls: TaskEvent[];
  let refuse: (event: TaskEvent) => boolean;
  let gate: Promise<void> | undefined;

  const start = async (dedupe?: { ttlS?: number; max?: number; store?: DedupeStore }): Promise<void> => {
    receiver = createEventReceiver({
      secrets: SECRETS,
      onEvent: async (event) => {
        calls.push(event);
        if (gate) await gate;
        if (refuse(event)) throw new Error('database down');
      },
      dedupe,
      clock,
      logger: new MemoryLogger(),
    });
    server = await listen(receiver.handler);
  };

  beforeEach(() => {
    clock = new ManualClock(Date.now());
    calls = [];
    refuse = () => false;
    gate = undefined;
  });

  afterEach(async () => {
    await receiver.close();
    await server.close();
  });

  it('answers a repeated event 200 {ok, duplicate} and delivers it once', async () => {
    await start();
    const event = makeEvent();
    const first = await postEvent(server.url, event, { nowMs: clock.now() });
    const second = await postEvent(server.url, event, { nowMs: clock.now() });
    expect(first.json).toEqual({ ok: true });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ ok: true, duplicate: true });
    expect(calls).toHaveLength(1);
    expect(receiver.stats()).toMatchObject({ delivered: 1, duplicates: 1, remembered: 1 });
  });

  it('dedupes re-signed attempts of the same event from the real transport', async () => {
    await start();
    const transport = new HttpEventTransport({
      url: server.url,
      secret: SECRET,
      serverName: 'sleeper',
      clock,
    });
    const event = makeEvent();
    const body = JSON.stringify(event);
    expect(await transport.send({ event, body, attempt: 1 })).toMatchObject({ ok: true });
    await clock.advance(5000);
    expect(await transport.send({ event, body, attempt: 2 })).toMatchObject({ ok: true });
    await transport.close();
    expect(calls).toHaveLength(1);
  });

  it('answers 500 when onEvent throws, and delivers the poster retry once', async () => {
    await start();
    let attempts = 0;
    refuse = () => {
      attempts += 1;
      return attempts === 1;
    };
    const transport = new HttpEventTransport({
      url: server.url,
      secret: SECRET,
      serverName: 'sleeper',
      clock,
    });
    const poster = new EventPoster({ serverName: 'sleeper', transport, clock, retryDelaysMs: [500] });
    const event = makeEvent();
    poster.post(event);
    await waitFor(() => poster.stats.retried === 1);
    expect(receiver.stats()).toMatchObject({ failed: 1, delivered: 0, byStatus: { 500: 1 } });
    await clock.advance(500);
    await waitFor(() => poster.stats.delivered === 1);
    await poster.aclose();
    expect(calls.map((e) => e.event_id)).toEqual([event.event_id, event.event_id]);
    expect(receiver.stats()).toMatchObject({ failed: 1, delivered: 1, duplicates: 0 });
    // Now it is remembered: one more copy is a duplicate.
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toEqual({
      ok: true,
      duplicate: true,
    });
    expect(calls).toHaveLength(2);
  });

  it('does not deliver a duplicate that arrives while the first copy is in flight', async () => {
    await start();
    const hold = deferred();
    gate = hold.promise;
    const event = makeEvent();
    const body = JSON.stringify(event);
    const first = postEvent(server.url, body, { nowMs: clock.now() });
    await waitFor(() => calls.length === 1);
    // receive() claims the event_id synchronously: these two are in flight behind the first.
    const request = {
      method: 'POST',
      headers: signedHeaders(body, { nowMs: clock.now() }),
      body: Buffer.from(body),
    };
    const second = receiver.receive(request);
    const third = receiver.receive(request);
    hold.resolve();
    expect((await first).json).toEqual({ ok: true });
    expect((await second).body).toEqual({ ok: true, duplicate: true });
    expect((await third).body).toEqual({ ok: true, duplicate: true });
    expect(calls).toHaveLength(1);
  });

  it('answers 500 to an in-flight duplicate whose first copy was refused; the retry is delivered', async () => {
    await start();
    const hold = deferred();
    gate = hold.promise;
    refuse = () => calls.length === 1;
    const event = makeEvent();
    const body = JSON.stringify(event);
    const first = postEvent(server.url, body, { nowMs: clock.now() });
    await waitFor(() => calls.length === 1);
    const request = {
      method: 'POST',
      headers: signedHeaders(body, { nowMs: clock.now() }),
      body: Buffer.from(body),
    };
    const second = receiver.receive(request);
    hold.resolve();
    expect((await first).status).toBe(500);
    expect((await second).status).toBe(500);
    gate = undefined;
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toEqual({ ok: true });
    expect(calls).toHaveLength(2);
  });

  it('forgets an event_id after the TTL', async () => {
    await start({ ttlS: 1000 });
    const event = makeEvent();
    await postEvent(server.url, event, { nowMs: clock.now() });
    await clock.advance(999_000);
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toEqual({
      ok: true,
      duplicate: true,
    });
    await clock.advance(2_000);
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toEqual({ ok: true });
    expect(calls).toHaveLength(2);
  });

  it('keeps an id for the whole replay window (2 x maxSkewS + 60 s) even with a shorter TTL', async () => {
    await start({ ttlS: 60 });
    const event = makeEvent();
    await postEvent(server.url, event, { nowMs: clock.now() });
    await clock.advance(659_000);
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toMatchObject({
      duplicate: true,
    });
    await clock.advance(2_000);
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toEqual({ ok: true });
  });

  it('refuses a new event with 503 + Retry-After when full of ids inside the replay window', async () => {
    await start({ max: 3 });
    const events = [1, 2, 3, 4].map((seq) => makeEvent({ seq }));
    for (const event of events.slice(0, 3)) await postEvent(server.url, event, { nowMs: clock.now() });
    expect(receiver.stats().remembered).toBe(3);
    const refused = await postEvent(server.url, events[3] as TaskEvent, { nowMs: clock.now() });
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ error: 'dedupe_full' });
    expect(refused.headers['retry-after']).toBe('660');
    // Nothing was forgotten: a replay of the first is still a duplicate.
    expect((await postEvent(server.url, events[0] as TaskEvent, { nowMs: clock.now() })).json).toMatchObject({
      duplicate: true,
    });
    expect(calls).toHaveLength(3);
    // Once the oldest id is past the window it makes room, and the retry is delivered.
    await clock.advance(660_000);
    const retried = await postEvent(server.url, events[3] as TaskEvent, { nowMs: clock.now() });
    expect(retried.json).toEqual({ ok: true });
    expect(receiver.stats()).toMatchObject({ dedupeFull: 1, remembered: 3 });
  });

  it('delivers a replay once even after 10,050 other events (issue 13.7)', async () => {
    await start();
    const captured = makeEvent({ task_id: 'slee-captur' });
    const body = JSON.stringify(captured);
    const headers = signedHeaders(body, { nowMs: clock.now() });
    expect((await send(server.url, { body, headers })).json).toEqual({ ok: true });
    for (let i = 0; i < 10_050; i += 1) {
      const other = JSON.stringify(makeEvent({ task_id: `slee-${i.toString(16).padStart(6, '0')}` }));
      const answer = await receiver.receive({
        method: 'POST',
        headers: signedHeaders(other, { nowMs: clock.now() }),
        body: Buffer.from(other),
      });
      expect(answer.status).toBe(200);
      if (i % 1000 === 0) await clock.advance(1000);
    }
    // The same captured request (same timestamp and signature), still inside the skew window.
    const replay = await send(server.url, { body, headers });
    expect(replay.json).toEqual({ ok: true, duplicate: true });
    expect(calls.filter((e) => e.event_id === captured.event_id)).toHaveLength(1);
    expect(receiver.stats()).toMatchObject({ delivered: 10_051, duplicates: 1, late: 0 });
  });

  it('takes an async DedupeStore through dedupe.store (the port a shared store implements)', async () => {
    const inner = new InMemoryDedupeStore({
      ttlMs: 3_600_000,
      protectMs: 660_000,
      maxEntries: 100,
      maxBytes: 1 << 20,
      clock,
    });
    const keys: string[] = [];
    const store: DedupeStore = {
      claim: async (key) => {
        keys.push(key);
        await new Promise((resolve) => setImmediate(resolve));
        return inner.claim(key);
      },
      get size() {
        return inner.size;
      },
    };
    await start({ store });
    const event = makeEvent();
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toEqual({ ok: true });
    expect((await postEvent(server.url, event, { nowMs: clock.now() })).json).toMatchObject({
      duplicate: true,
    });
    expect(keys).toEqual([`sleeper\u0000${event.event_id}`, `sleeper\u0000${event.event_id}`]);
    expect(receiver.stats()).toMatchObject({ delivered: 1, duplicates: 1, remembered: 1 });
  });

  it('keys dedupe by server and event_id', async () => {
    await start();
    const a = makeEvent();
    const b = makeEvent({ server: 'navigation', task_id: 'navi-000001', event_id: a.event_id });
    await postEvent(server.url, a, { nowMs: clock.now() });
    const answer = await postEvent(server.url, b, {
      nowMs: clock.now(),
      server: 'navigation',
      secret: SECRETS.navigation,
    });
    expect(answer.json).toEqual({ ok: true });
    expect(calls).toHaveLength(2);
  });

  it('receive() works without HTTP (adapters use it)', async () => {
    await start();
    const body = JSON.stringify(makeEvent());
    const request = {
      method: 'POST',
      headers: signedHeaders(body, { nowMs: clock.now() }),
      body: Buffer.from(body),
    };
    expect((await receiver.receive(request)).body).toEqual({ ok: true });
    expect((await receiver.receive(request)).body).toEqual({ ok: true, duplicate: true });
  });
});
