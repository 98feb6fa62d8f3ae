import { afterEach, describe, expect, it } from '@jest/globals';
import { EventPoster } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import {
  JetStreamEventSource,
  JetStreamEventTransport,
  MEMORY_STREAM_WARNING,
  MqttEventSource,
  MqttEventTransport,
} from '@robot-mcp-kit/brokers';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { makeEvent, PrivateBroker, SECRET, SHARED_NATS, uniqueName, until } from './broker-test.helpers.js';

// Issue 28 finding 3: acknowledged events survive a broker restart only with the broker's
// persistence on (Mosquitto `persistence true`, JetStream file storage); the kit warns when it
// can tell it is off. Private Mosquitto processes (own port, own config and directory) are
// restarted; the shared NATS holds uniquely named streams.
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

const SESSION_LOST = "MQTT broker lost this app's session on reconnect";

async function mosquittoRun(persistence: boolean) {
  const broker = await PrivateBroker.start('mosquitto', undefined, false, persistence);
  cleanups.push(() => broker.dispose());
  const delivered: number[] = [];
  const logger = new MemoryLogger();
  const clientId = uniqueName('app');
  const makeSource = () =>
    new MqttEventSource({
      url: broker.url,
      clientId,
      logger,
      receiver: createEventReceiver({
        secrets: { sleeper: SECRET },
        onEvent: (e) => void delivered.push(e.seq),
      }),
    });
  const transport = new MqttEventTransport({ url: broker.url, secret: SECRET, serverName: 'sleeper' });
  cleanups.push(() => transport.close());
  await transport.open();
  const poster = new EventPoster({ serverName: 'sleeper', transport });
  cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
  return { broker, delivered, logger, makeSource, poster };
}

describe('Mosquitto restarted while the app is away', () => {
  it('with persistence true, every acknowledged event reaches the app afterwards', async () => {
    const run = await mosquittoRun(true);
    const first = run.makeSource();
    await first.start(); // creates the app's session and subscription
    await first.close();
    for (let seq = 1; seq <= 10; seq += 1) run.poster.post(makeEvent('sleeper', 'slee-0000c1', seq));
    expect(await run.poster.flush(20_000)).toBe(true); // every event PUBACKed by the broker
    await run.broker.restart();
    const again = run.makeSource();
    await again.start();
    cleanups.push(() => again.close());
    await until(() => run.delivered.length >= 10, 'the ten events queued before the restart');
    expect(run.delivered).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(run.logger.at('warn', SESSION_LOST)).toHaveLength(0);
  }, 60_000);
});

describe.each([true, false])('Mosquitto (persistence %s) restarted under a running app', (persistence) => {
  it(
    persistence ? 'keeps the session: no warning' : 'loses the session: the app warns with the fix',
    async () => {
      const run = await mosquittoRun(persistence);
      const source = run.makeSource();
      await source.start();
      cleanups.push(() => source.close());
      await run.broker.restart();
      run.poster.post(makeEvent('sleeper', 'slee-0000c2', 1));
      await until(() => run.delivered.length === 1, 'an event through the source back after the restart');
      const warnings = run.logger.at('warn', SESSION_LOST);
      if (persistence) expect(warnings).toHaveLength(0);
      else {
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.message).toContain('persistence true in mosquitto.conf');
      }
    },
    60_000,
  );
});

describe('JetStream stream storage', () => {
  it.each([StorageType.Memory, StorageType.File])(
    '%s storage: warned at start only for memory',
    async (storage) => {
      const prefix = uniqueName('rmk');
      const stream = prefix.toUpperCase();
      const nc = await connect({ servers: '127.0.0.1:4222' });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], storage });
      cleanups.push(async () => {
        await jsm.streams.delete(stream).catch(() => undefined);
        await nc.close();
      });
      const url = `${SHARED_NATS}?subject_prefix=${prefix}&stream=${stream}`;
      const robotLog = new MemoryLogger();
      const transport = new JetStreamEventTransport({
        url,
        secret: SECRET,
        serverName: 'sleeper',
        logger: robotLog,
      });
      cleanups.push(() => transport.close());
      await transport.open();
      const appLog = new MemoryLogger();
      const receiver = createEventReceiver({ secrets: { sleeper: SECRET }, onEvent: () => undefined });
      const source = new JetStreamEventSource({ url, receiver, durable: 'app', logger: appLog });
      await source.start();
      cleanups.push(() => source.close());
      for (const logger of [robotLog, appLog]) {
        expect(logger.at('warn', MEMORY_STREAM_WARNING)).toHaveLength(storage === StorageType.Memory ? 1 : 0);
      }
    },
  );
});
