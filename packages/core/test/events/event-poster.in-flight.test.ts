import {
  type DeliveryOutcome,
  EventPoster,
  type EventTransport,
  type EventDelivery,
} from '@robot-mcp-kit/core';
import { makeEvent, turns, until } from './test-helpers.js';

// Issue 28: a transport that multiplexes its sends (a broker connection) says how many it carries
// well at once (`maxInFlight`); the poster takes that when its own option is not set.

/** A transport that holds every send until release() and records the most held at once. */
class HoldingTransport implements EventTransport {
  readonly description = 'holding';
  maxInFlight: number | undefined;
  most = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(maxInFlight?: number) {
    this.maxInFlight = maxInFlight;
  }

  get held(): number {
    return this.waiting.length;
  }

  async send(_delivery: EventDelivery): Promise<DeliveryOutcome> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.most = Math.max(this.most, this.waiting.length);
    });
    return { ok: true };
  }

  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/** Posts one event for each of 40 tasks and returns how many sends were held at once. */
async function concurrency(transport: HoldingTransport, maxInFlight?: number): Promise<number> {
  const poster = new EventPoster({
    serverName: 'nav',
    transport,
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  });
  for (let i = 0; i < 40; i += 1) poster.post(makeEvent(`nav-${i.toString(16).padStart(6, '0')}`, 1));
  await until(() => transport.held > 0, 'the first sends');
  await turns(20); // every slot the poster would fill is filled by now
  const most = transport.most;
  for (;;) {
    transport.release();
    if (poster.stats.delivered === 40) break;
    await until(() => transport.held > 0 || poster.stats.delivered === 40, 'the next sends');
  }
  expect(transport.most).toBe(most); // never more later on
  await poster.aclose({ timeoutMs: 0 });
  return most;
}

describe('EventPoster maxInFlight from the transport', () => {
  it("uses the transport's maxInFlight when the option is not set", async () => {
    expect(await concurrency(new HoldingTransport(16))).toBe(16);
  });

  it('keeps its default of 8 for a transport that says nothing (or nonsense)', async () => {
    expect(await concurrency(new HoldingTransport())).toBe(8);
    expect(await concurrency(new HoldingTransport(0))).toBe(8);
    expect(await concurrency(new HoldingTransport(2.5))).toBe(8);
  });

  it('lets its own maxInFlight win over the transport', async () => {
    expect(await concurrency(new HoldingTransport(16), 4)).toBe(4);
  });

  it('reads it at every attempt: a transport that sets it once connected gets it then', async () => {
    const transport = new HoldingTransport();
    const poster = new EventPoster({ serverName: 'nav', transport });
    for (let i = 0; i < 40; i += 1) poster.post(makeEvent(`nav-${i.toString(16).padStart(6, '0')}`, 1));
    await until(() => transport.held === 8, 'the default slots');
    transport.maxInFlight = 24;
    transport.release();
    await until(() => transport.held === 24, 'the slots the transport asks for');
    while (poster.stats.delivered < 40) {
      transport.release();
      await until(() => transport.held > 0 || poster.stats.delivered === 40, 'the next sends');
    }
    await poster.aclose({ timeoutMs: 0 });
  });
});
