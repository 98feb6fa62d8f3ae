import { EventPoster } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { advanceToNextTimer, makeEvent, turns, until } from './test-helpers.js';

const T0 = Date.UTC(2026, 0, 1);

/** A delivery gate the test opens and closes; each question it was asked is counted. */
class TestGate {
  open = false;
  asked = 0;
  readonly ask = (): Promise<boolean> => {
    this.asked += 1;
    return Promise.resolve(this.open);
  };
}

function setup(gate: TestGate) {
  const clock = new ManualClock(T0);
  const transport = new InMemoryEventTransport();
  const poster = new EventPoster({
    serverName: 'navigation',
    transport,
    clock,
    logger: new MemoryLogger(),
    deliveryGate: gate.ask,
  });
  return { clock, transport, poster };
}

describe('EventPoster deliveryGate (a replica that may no longer own its tasks)', () => {
  it('sends nothing while the gate answers false, and the same event once it answers true', async () => {
    const gate = new TestGate();
    const { clock, transport, poster } = setup(gate);
    const event = makeEvent('nav-1');
    poster.post(event);
    await until(() => gate.asked === 1, 'the gate asked before the first attempt');
    await turns(5);
    expect(transport.attempts).toHaveLength(0);
    expect(poster.stats).toMatchObject({ delivered: 0, retried: 1, queueDepth: 1 });

    gate.open = true;
    await advanceToNextTimer(clock); // the retry
    await until(() => poster.stats.delivered === 1, 'delivered once the gate opened');
    expect(transport.events.map((e) => e.event_id)).toEqual([event.event_id]);
    expect(gate.asked).toBe(2);
  });
});
