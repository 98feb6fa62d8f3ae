import { describe, expect, it } from '@jest/globals';
import { EventPoster } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import {
  type EventIntake,
  JetStreamEventSource,
  JetStreamEventTransport,
  MqttEventSource,
  type MqttEventTransport,
} from '@robot-mcp-kit/brokers';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  makeEvent,
  mqttTransport,
  SECRET,
  SHARED_MQTT,
  SHARED_NATS,
  uniqueName,
  until,
  useCleanups,
} from './broker-test.helpers.js';

// Issue 28 findings 1 and 2: the app's dedupe store down for a moment makes the receiver answer
// 503 (`dedupe_unavailable`). Before: the message was left unacknowledged on the live connection,
// so MQTT stalled once Mosquitto's in-flight window (20) was full, and JetStream went on with
// later messages (a task's events reordered). Now the source offers it again in place with
// backoff, on the same connection, until the store is back. The outage is a fake at the kit's
// own port (EventIntake) in front of the real receiver; brokers are the machine's real ones.
const cleanups = useCleanups();

/** The real receiver behind an outage of the dedupe store that lasts `refusals` offers. */
function storeOutage(refusals: number, delivered: number[]): { intake: EventIntake; refused: () => number } {
  const receiver = createEventReceiver({
    secrets: { sleeper: SECRET },
    onEvent: (event) => void delivered.push(event.seq),
  });
  let refused = 0;
  return {
    refused: () => refused,
    intake: {
      receive: async (request) => {
        if (refused < refusals) {
          refused += 1;
          return { status: 503, body: { error: 'dedupe_unavailable' } };
        }
        return receiver.receive(request);
      },
    },
  };
}

const EVENTS = 30; // more than Mosquitto's in-flight window of 20
const REFUSALS = 25; // more refusals than that window too
const FAST = [5, 10, 20];

describe('a receiver refusing with 503 for a while (dedupe store down)', () => {
  it('MQTT: every event arrives, in order, on the live connection', async () => {
    const prefix = uniqueName('rmk');
    const delivered: number[] = [];
    const outage = storeOutage(REFUSALS, delivered);
    const logger = new MemoryLogger();
    const source = new MqttEventSource({
      url: `${SHARED_MQTT}?topic_prefix=${prefix}`,
      receiver: outage.intake,
      clientId: uniqueName('app'),
      sessionExpiryS: 60,
      retryDelaysMs: FAST,
      logger,
    });
    await source.start();
    cleanups.push(() => source.close());
    await runOutage(mqttTransport(prefix, cleanups), delivered);
    expect(outage.refused()).toBe(REFUSALS);
    expect(logger.at('warn', 'MQTT connection lost')).toHaveLength(0);
    expect(source.stats()).toMatchObject({ acked: EVENTS, reoffered: REFUSALS });
  }, 60_000);

  it('JetStream: every event arrives once, in per-task order (no 1,2,3,7,8,9,4,5,6)', async () => {
    const prefix = uniqueName('rmk');
    const stream = prefix.toUpperCase();
    cleanups.push(async () => {
      const nc = await connect({ servers: '127.0.0.1:4222' });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.close();
    });
    const url = `${SHARED_NATS}?subject_prefix=${prefix}&stream=${stream}`;
    const delivered: number[] = [];
    const outage = storeOutage(REFUSALS, delivered);
    const transport = new JetStreamEventTransport({ url, secret: SECRET, serverName: 'sleeper' });
    cleanups.push(() => transport.close());
    await transport.open();
    const source = new JetStreamEventSource({
      url,
      receiver: outage.intake,
      durable: uniqueName('app'),
      retryDelaysMs: FAST,
    });
    await source.start();
    cleanups.push(() => source.close());
    await runOutage(transport, delivered);
    expect(outage.refused()).toBe(REFUSALS);
  }, 60_000);
});

async function runOutage(
  transport: MqttEventTransport | JetStreamEventTransport,
  delivered: number[],
): Promise<void> {
  const poster = new EventPoster({ serverName: 'sleeper', transport });
  cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
  for (let seq = 1; seq <= EVENTS; seq += 1) poster.post(makeEvent('sleeper', 'slee-0000b1', seq));
  await until(() => delivered.length >= EVENTS, `all ${EVENTS} events`, 30_000);
  expect(delivered).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
}
