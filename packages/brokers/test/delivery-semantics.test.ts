import { afterEach, describe, expect, it } from '@jest/globals';
import { ConfigError, EventPoster, type EventTransport, type TaskEvent } from '@robot-mcp-kit/core';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import {
  JetStreamEventSource,
  JetStreamEventTransport,
  MqttEventSource,
  MqttEventTransport,
} from '@robot-mcp-kit/brokers';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  makeEvent,
  PrivateBroker,
  SECRET,
  SHARED_MQTT,
  SHARED_NATS,
  uniqueName,
  until,
} from './broker-test.helpers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

type Receiver = ReturnType<typeof createEventReceiver>;
interface Side {
  transport: EventTransport;
  source(receiver: Receiver, id: string): MqttEventSource | JetStreamEventSource;
}

function mqttSide(prefix: string): Side {
  return {
    transport: new MqttEventTransport({
      url: SHARED_MQTT,
      secret: SECRET,
      serverName: 'sleeper',
      topicPrefix: prefix,
    }),
    source: (receiver, id) =>
      new MqttEventSource({
        url: SHARED_MQTT,
        receiver,
        clientId: id,
        topicPrefix: prefix,
        sessionExpiryS: 60,
      }),
  };
}

function natsSide(prefix: string): Side {
  const stream = { name: prefix.toUpperCase(), maxAgeS: 600 };
  cleanups.push(async () => {
    const nc = await connect({ servers: '127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(stream.name).catch(() => undefined);
    await nc.close();
  });
  return {
    transport: new JetStreamEventTransport({
      url: SHARED_NATS,
      secret: SECRET,
      serverName: 'sleeper',
      subjectPrefix: prefix,
      stream,
    }),
    source: (receiver, id) =>
      new JetStreamEventSource({ url: SHARED_NATS, receiver, durable: id, subjectPrefix: prefix, stream }),
  };
}

describe.each([
  ['MQTT', mqttSide],
  ['JetStream', natsSide],
])('%s delivery semantics', (_name, makeSide) => {
  it('offers an event again in place when onEvent refuses it, so the order holds', async () => {
    const side = makeSide(uniqueName('rmk'));
    const delivered: number[] = [];
    let refusals = 0;
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: (event) => {
        if (event.seq === 2 && refusals < 2) {
          refusals += 1;
          throw new Error('database down');
        }
        delivered.push(event.seq);
      },
    });
    const source = side.source(receiver, uniqueName('app'));
    await side.transport.open!();
    await source.start();
    cleanups.push(() => source.close());
    const poster = new EventPoster({ serverName: 'sleeper', transport: side.transport });
    cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
    for (let seq = 1; seq <= 4; seq += 1) poster.post(makeEvent('sleeper', 'slee-00000f', seq));
    await until(() => delivered.length === 4, 'all four events');
    expect(delivered).toEqual([1, 2, 3, 4]);
    expect(refusals).toBe(2);
    expect(source.stats().reoffered).toBe(2);
    expect(receiver.stats()).toMatchObject({ delivered: 4, failed: 2, gaps: 0 });
  });

  it('an app restart on the same session / durable gets what was published while it was away', async () => {
    const side = makeSide(uniqueName('rmk'));
    const id = uniqueName('app');
    const first: TaskEvent[] = [];
    const source = side.source(
      createEventReceiver({ secrets: { sleeper: SECRET }, onEvent: (e) => void first.push(e) }),
      id,
    );
    await side.transport.open!();
    await source.start();
    const poster = new EventPoster({ serverName: 'sleeper', transport: side.transport });
    cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
    for (let seq = 1; seq <= 3; seq += 1) poster.post(makeEvent('sleeper', 'slee-00000e', seq));
    await until(() => first.length === 3, 'the first three');
    await source.close();
    for (let seq = 4; seq <= 8; seq += 1) poster.post(makeEvent('sleeper', 'slee-00000e', seq));
    expect(await poster.flush(30_000)).toBe(true);
    const second: TaskEvent[] = [];
    const again = side.source(
      createEventReceiver({ secrets: { sleeper: SECRET }, onEvent: (e) => void second.push(e) }),
      id,
    );
    await again.start();
    cleanups.push(() => again.close());
    await until(() => second.length === 5, 'the five published while away');
    expect(second.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
  });
});

describe.each(['mosquitto', 'nats'] as const)('%s with username and password', (kind) => {
  it('connects with the credentials in the URL and fails fast with wrong ones', async () => {
    const broker = await PrivateBroker.start(kind, { user: 'robot', pass: 's3cret' });
    cleanups.push(() => broker.dispose());
    const url = (auth: string) => broker.url.replace('://', `://${auth}@`);
    const make = (auth: string) =>
      kind === 'mosquitto'
        ? new MqttEventTransport({
            url: url(auth),
            secret: SECRET,
            serverName: 'sleeper',
            connectTimeoutMs: 5000,
          })
        : new JetStreamEventTransport({
            url: url(auth),
            secret: SECRET,
            serverName: 'sleeper',
            connectTimeoutMs: 5000,
          });
    const good = make('robot:s3cret');
    cleanups.push(() => good.close());
    await good.open();
    const event = makeEvent('sleeper', 'slee-00000d', 1);
    await expect(good.send({ event, body: JSON.stringify(event.toJSON()), attempt: 1 })).resolves.toEqual({
      ok: true,
    });

    const bad = make('robot:wrong');
    cleanups.push(() => bad.close());
    const err = await bad.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^RVC_CALLBACK_URL: cannot connect to .*(credentials|Not authorized|Authorization)/i,
    );
  }, 60_000);
});

describe.each(['mosquitto', 'nats'] as const)('%s over TLS', (kind) => {
  it('publishes to a TLS broker trusting its certificate, and refuses an untrusted one', async () => {
    const broker = await PrivateBroker.start(kind, undefined, true);
    cleanups.push(() => broker.dispose());
    const make = (ca?: string) => {
      const common = {
        secret: SECRET,
        serverName: 'sleeper',
        connectTimeoutMs: 5000,
        ...(ca ? { tls: { ca } } : {}),
      };
      return kind === 'mosquitto'
        ? new MqttEventTransport({ url: broker.url, ...common })
        : new JetStreamEventTransport({ url: broker.url, ...common });
    };
    const trusted = make(broker.certificate);
    cleanups.push(() => trusted.close());
    await trusted.open();
    const event = makeEvent('sleeper', 'slee-00000c', 1);
    await expect(trusted.send({ event, body: JSON.stringify(event.toJSON()), attempt: 1 })).resolves.toEqual({
      ok: true,
    });

    const untrusted = make();
    cleanups.push(() => untrusted.close());
    const err = await untrusted.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^RVC_CALLBACK_URL: cannot connect to .*(certificate|self.signed|TLS)/i,
    );
  }, 60_000);
});
