import { EventPoster, type EventPosterOptions, TaskManager } from '@robot-mcp-kit/core';
import { type EventOutbox, InMemoryEventOutbox, type OutboxRecord } from '@robot-mcp-kit/core/store';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { advanceToNextTimer, makeEvent, turns, until } from './test-helpers.js';

const T0 = Date.UTC(2026, 0, 1);
const down = () => ({ ok: false as const, status: 500, error: 'HTTP 500' });

function setup(options: Partial<EventPosterOptions> = {}) {
  const clock = new ManualClock(T0);
  const logger = new MemoryLogger();
  const transport = new InMemoryEventTransport();
  const outbox = options.outbox ?? new InMemoryEventOutbox();
  const poster = new EventPoster({ serverName: 'navigation', transport, clock, logger, ...options, outbox });
  return { clock, logger, transport, outbox: outbox as InMemoryEventOutbox, poster };
}

/** An outbox whose appends wait until `release()` (a slow durable store). */
class GatedOutbox extends InMemoryEventOutbox {
  private readonly gates: (() => void)[] = [];

  override async append(record: OutboxRecord): Promise<void> {
    await new Promise<void>((resolve) => this.gates.push(resolve));
    return super.append(record);
  }

  get waiting(): number {
    return this.gates.length;
  }

  release(): void {
    for (const open of this.gates.splice(0)) open();
  }
}

describe('EventPoster with an outbox', () => {
  it('returns nothing from post() without an outbox: the default path is unchanged', () => {
    const transport = new InMemoryEventTransport();
    const poster = new EventPoster({ serverName: 'navigation', transport });
    expect(poster.post(makeEvent('nav-1'))).toBeUndefined();
    expect(poster.outboxStats).toBeUndefined();
  });

  it('writes each event before post() resolves and removes it once delivered', async () => {
    const { poster, outbox, transport } = setup();
    // The receiver answers only once the test has looked at the outbox (delivery may start first).
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    transport.setHandler(async () => {
      await answered;
      return { ok: true, status: 200 };
    });
    const event = makeEvent('nav-1', 1);
    const written = poster.post(event);
    expect(written).toBeInstanceOf(Promise);
    await written;
    expect(outbox.pending.map((r) => r.event.event_id)).toEqual([event.event_id]);
    expect(outbox.pending[0]!.body).toBe(JSON.stringify(event));
    answer();
    expect(await poster.flush()).toBe(true);
    expect(transport.deliveries.map((d) => d.event.event_id)).toEqual([event.event_id]);
    await until(() => outbox.pending.length === 0, 'the delivered event removed from the outbox');
    expect(poster.outboxStats).toMatchObject({ written: 1, acked: 1, writeErrors: 0 });
  });

  it('keeps undelivered events in the outbox and removes one given up past the retry cap', async () => {
    const { poster, outbox, transport, clock } = setup({ maxRetryMs: 5_000 });
    transport.setHandler(down);
    await poster.post(makeEvent('nav-1', 1));
    await poster.post(makeEvent('nav-1', 2));
    await turns();
    expect(outbox.pending).toHaveLength(2);
    while (poster.stats.dropped < 2 && (await advanceToNextTimer(clock)) > 0) await turns();
    expect(poster.stats.dropped).toBe(2);
    await until(() => outbox.pending.length === 0, 'events past the cap removed from the outbox');
  });

  it('a poster opened on the outbox of a dead one delivers its events, same event_id, in seq order per task', async () => {
    const outbox = new InMemoryEventOutbox();
    const first = setup({ outbox });
    first.transport.setHandler(down);
    const events = [
      makeEvent('nav-1', 1),
      makeEvent('nav-2', 1),
      makeEvent('nav-1', 2),
      makeEvent('nav-1', 3, 'task_done'),
    ];
    for (const event of events) await first.poster.post(event);
    await turns();
    expect(outbox.pending).toHaveLength(4);
    outbox.orphanAll(); // the first poster's process died (no aclose)

    const second = setup({ outbox });
    await second.poster.open();
    expect(await second.poster.flush()).toBe(true);
    const got = second.transport.deliveries.map((d) => d.event);
    expect(got.map((e) => e.event_id).sort()).toEqual(events.map((e) => e.event_id).sort());
    expect(got.filter((e) => e.task_id === 'nav-1').map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(second.transport.deliveries.map((d) => d.body)).toEqual(
      got.map((e) => JSON.stringify(events.find((x) => x.event_id === e.event_id))),
    );
    expect(second.poster.outboxStats?.recovered).toBe(4);
    await until(() => outbox.pending.length === 0, 'the taken-over events removed once delivered');
  });

  it('counts the retry cap of a taken-over event from its first post', async () => {
    const outbox = new InMemoryEventOutbox();
    const event = makeEvent('nav-1', 1);
    await outbox.append({ event, body: JSON.stringify(event), postedAtMs: Date.now() - 60_000 });
    outbox.orphanAll();
    const { poster, transport, clock } = setup({ outbox, maxRetryMs: 61_000 });
    transport.setHandler(down);
    await poster.open();
    await turns();
    await clock.advance(1_500); // past what is left of the cap (about 1 s), not past a fresh cap
    await until(() => poster.stats.dropped === 1, 'the taken-over event given up at its original cap');
  });

  it('still delivers from memory when the outbox refuses a write, logged and counted', async () => {
    const { poster, outbox, logger, transport } = setup();
    outbox.failWith = new Error('store unreachable');
    await expect(poster.post(makeEvent('nav-1', 1))).resolves.toBeUndefined();
    expect(await poster.flush()).toBe(true);
    expect(transport.deliveries).toHaveLength(1);
    expect(poster.outboxStats?.writeErrors).toBe(1);
    expect(logger.entries.some((e) => e.level === 'error' && /outbox refused a write/.test(e.message))).toBe(
      true,
    );
  });

  it('leaves events abandoned by aclose in the outbox for the next owner', async () => {
    const { poster, outbox, transport } = setup();
    transport.setHandler(down);
    await poster.post(makeEvent('nav-1', 1));
    const report = await poster.aclose({ timeoutMs: 0 });
    expect(report.unflushed).toBe(1);
    expect(outbox.pending).toHaveLength(1);
  });

  it('rejects an outbox that is not one, naming the option', () => {
    const transport = new InMemoryEventTransport();
    const bad = { append: 1 } as unknown as EventOutbox;
    expect(() => new EventPoster({ serverName: 'navigation', transport, outbox: bad })).toThrow(/outbox/);
  });
});

describe('TaskContext with a durable outbox', () => {
  it('ctx.progress() returns only once its event is written; the task ends once its terminal event is', async () => {
    const outbox = new GatedOutbox();
    const transport = new InMemoryEventTransport();
    const poster = new EventPoster({ serverName: 'navigation', transport, outbox });
    const manager = new TaskManager({ serverName: 'navigation', poster });
    let progressed = false;
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress({ percent: 50 });
      progressed = true;
      return { arrived: true };
    });
    await until(() => outbox.waiting === 1, 'the progress write under way');
    await turns(10);
    expect(progressed).toBe(false); // waits for the durable write
    outbox.release();
    await until(() => progressed, 'progress() returned');
    expect(outbox.pending.map((r) => r.event.type)).toContain('progress');
    await until(() => outbox.waiting === 1, 'the task_done write under way');
    let ended = false;
    const settled = (
      manager as unknown as { lifecycle: { tasks: Map<string, { settled: Promise<void> }> } }
    ).lifecycle.tasks.get(info.task_id)!.settled;
    void settled.then(() => (ended = true));
    await turns(10);
    expect(ended).toBe(false);
    outbox.release();
    await until(() => ended, 'the task end, once task_done is written');
    await poster.aclose();
  });
});
