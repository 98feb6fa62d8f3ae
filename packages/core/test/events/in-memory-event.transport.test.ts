import { NoopEventTransport } from '../../src/events/noop-event.transport.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { makeEvent } from './test-helpers.js';

function delivery(seq: number, attempt = 1) {
  const event = makeEvent('nav-1', seq);
  return { event, body: JSON.stringify(event), attempt };
}

describe('InMemoryEventTransport', () => {
  it('acknowledges by default and records attempts, deliveries, events and bodies', async () => {
    const transport = new InMemoryEventTransport();
    const d = delivery(1);
    await expect(transport.send(d)).resolves.toEqual({ ok: true, status: 200 });
    expect(transport.attempts).toEqual([d]);
    expect(transport.deliveries).toEqual([{ ...d, outcome: { ok: true, status: 200 } }]);
    expect(transport.events).toEqual([d.event]);
    expect(transport.bodies).toEqual([JSON.parse(d.body)]);
    transport.clear();
    expect([transport.attempts, transport.deliveries, transport.events]).toEqual([[], [], []]);
  });

  it('fails the next n attempts, then uses the handler', async () => {
    const transport = new InMemoryEventTransport(() => ({ ok: false, error: 'handler says no' }));
    transport.failNext(2).failNext(1, { ok: false, error: 'custom', retryAfterMs: 10 });
    const outcomes = [];
    for (let i = 0; i < 4; i += 1) outcomes.push(await transport.send(delivery(1, i + 1)));
    expect(outcomes).toEqual([
      { ok: false, status: 503, error: 'HTTP 503 (scripted)' },
      { ok: false, status: 503, error: 'HTTP 503 (scripted)' },
      { ok: false, error: 'custom', retryAfterMs: 10 },
      { ok: false, error: 'handler says no' },
    ]);
    expect(transport.events).toEqual([]);
    transport.setHandler(undefined);
    await expect(transport.send(delivery(2))).resolves.toMatchObject({ ok: true });
    expect(transport.events).toHaveLength(1);
  });

  it('with record: false keeps nothing, while its handler and script still decide each outcome', async () => {
    const seen: number[] = [];
    const transport = new InMemoryEventTransport(
      (d) => {
        seen.push(d.event.seq);
        return d.event.seq === 2 ? { ok: false, status: 500, error: 'HTTP 500' } : { ok: true, status: 200 };
      },
      { record: false },
    ).failNext(1);
    await expect(transport.send(delivery(1))).resolves.toMatchObject({ ok: false, status: 503 });
    await expect(transport.send(delivery(2))).resolves.toEqual({ ok: false, status: 500, error: 'HTTP 500' });
    await expect(transport.send(delivery(3))).resolves.toEqual({ ok: true, status: 200 });
    expect(seen).toEqual([2, 3]);
    expect([transport.attempts, transport.deliveries, transport.events]).toEqual([[], [], []]);
  });

  it('records close()', async () => {
    const transport = new InMemoryEventTransport();
    expect(transport.closed).toBe(false);
    await transport.close();
    expect(transport.closed).toBe(true);
  });
});

describe('NoopEventTransport', () => {
  it('accepts every event and logs its ids at debug, never its body', async () => {
    const logger = new MemoryLogger();
    const transport = new NoopEventTransport({ logger });
    const d = { ...delivery(3), body: JSON.stringify({ blob: 'b'.repeat(1_000_000) }) };
    await expect(transport.send(d)).resolves.toEqual({ ok: true });
    expect(logger.at('debug')[0]!.meta).toMatchObject({
      event_id: d.event.event_id,
      seq: 3,
      bytes: d.body.length,
    });
    expect(JSON.stringify(logger.entries).length).toBeLessThan(1000);
    await expect(transport.close()).resolves.toBeUndefined();
    await expect(new NoopEventTransport().send(d)).resolves.toEqual({ ok: true });
  });
});
