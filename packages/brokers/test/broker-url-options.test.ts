import { afterEach, describe, expect, it } from '@jest/globals';
import { EventPoster, silentLogger } from '@robot-mcp-kit/core';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import {
  createBrokerEventTransport,
  JetStreamEventSource,
  JetStreamEventTransport,
  MqttEventSource,
  MqttEventTransport,
} from '@robot-mcp-kit/brokers';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { makeEvent, SECRET, SHARED_MQTT, SHARED_NATS, uniqueName, until } from './broker-test.helpers.js';

// Issue 28 finding 6: the robot's RVC_CALLBACK_URL, query options and all, copied into the app's
// source gives the same topics / subjects / stream; an option either side cannot use is refused by
// both with the same message (one parser).
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

function deleteStreamLater(name: string): void {
  cleanups.push(async () => {
    const nc = await connect({ servers: '127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => undefined);
    await nc.close();
  });
}

const CASES = [
  {
    name: 'nats',
    url: (prefix: string) =>
      `${SHARED_NATS}?subject_prefix=${prefix}&stream=${prefix.toUpperCase()}&max_age_s=600`,
    source: (url: string, receiver: ReturnType<typeof createEventReceiver>) =>
      new JetStreamEventSource({ url, receiver, durable: uniqueName('app') }),
  },
  {
    name: 'mqtt',
    url: (prefix: string) => `${SHARED_MQTT}?topic_prefix=${prefix}`,
    source: (url: string, receiver: ReturnType<typeof createEventReceiver>) =>
      new MqttEventSource({ url, receiver, clientId: uniqueName('app'), sessionExpiryS: 60 }),
  },
];

describe.each(CASES)('a $name source given the robot RVC_CALLBACK_URL as it is', (scheme) => {
  it('receives every event the transport built from that URL publishes', async () => {
    const prefix = uniqueName('rmk');
    deleteStreamLater(prefix.toUpperCase());
    const url = scheme.url(prefix);
    const transport = createBrokerEventTransport({
      url,
      secret: SECRET,
      serverName: 'sleeper',
      messageExpiryS: 600,
      logger: silentLogger,
    });
    cleanups.push(() => transport.close!());
    await transport.open!();
    const delivered: number[] = [];
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: (event) => void delivered.push(event.seq),
    });
    const source = scheme.source(url, receiver);
    await source.start();
    cleanups.push(() => source.close());
    const poster = new EventPoster({ serverName: 'sleeper', transport });
    cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
    for (let seq = 1; seq <= 3; seq += 1) poster.post(makeEvent('sleeper', 'slee-0000a1', seq));
    await until(() => delivered.length === 3, 'the three events through the URL options', 15_000);
    expect(delivered).toEqual([1, 2, 3]);
  }, 30_000);
});

const receiver = createEventReceiver({ secrets: { sleeper: SECRET }, onEvent: () => undefined });
const robot = { secret: SECRET, serverName: 'sleeper' };

describe('URL options are read by one parser for transports and sources', () => {
  it.each([
    [
      'nats://127.0.0.1:4222?subjects=x',
      /url: unknown query parameter "subjects" for nats; use subject_prefix, stream, retention, max_age_s/,
    ],
    [
      'nats://127.0.0.1:4222?max_age_s=soon',
      /url: max_age_s must be a positive whole number of seconds; got "soon"/,
    ],
    ['nats://127.0.0.1:4222?retention=forever', /url: retention must be limits, interest or workqueue/],
  ])('NATS: %s is refused alike', (url, message) => {
    expect(() => new JetStreamEventTransport({ ...robot, url })).toThrow(message);
    expect(() => new JetStreamEventSource({ url, receiver, durable: 'app' })).toThrow(message);
  });

  it.each([
    [
      'mqtt://127.0.0.1:1883?stream=X',
      /url: unknown query parameter "stream" for mqtt; use topic_prefix, client_id/,
    ],
    ['mqtt://127.0.0.1:1883?topic_prefix=a%23b', /topicPrefix: must be letters, digits/],
  ])('MQTT: %s is refused alike', (url, message) => {
    expect(() => new MqttEventTransport({ ...robot, url })).toThrow(message);
    expect(() => new MqttEventSource({ url, receiver, clientId: 'app' })).toThrow(message);
  });

  it('refuses an option set differently in the URL and in code, naming both', () => {
    const url = 'nats://127.0.0.1:4222?subject_prefix=fleet&stream=FLEET';
    const conflict = /subjectPrefix: is "other" but the URL's subject_prefix is "fleet"; set it in one place/;
    expect(() => new JetStreamEventTransport({ ...robot, url, subjectPrefix: 'other' })).toThrow(conflict);
    expect(() => new JetStreamEventSource({ url, receiver, durable: 'a', subjectPrefix: 'other' })).toThrow(
      conflict,
    );
    const stream = /stream\.name: is "MINE" but the URL's stream is "FLEET"/;
    expect(() => new JetStreamEventTransport({ ...robot, url, stream: { name: 'MINE' } })).toThrow(stream);
    expect(() => new JetStreamEventSource({ url, receiver, durable: 'a', stream: { name: 'MINE' } })).toThrow(
      stream,
    );
    const mqtt = 'mqtt://127.0.0.1:1883?client_id=nav-1';
    const clientId = /clientId: is "app-1" but the URL's client_id is "nav-1"/;
    expect(() => new MqttEventTransport({ ...robot, url: mqtt, clientId: 'app-1' })).toThrow(clientId);
    expect(() => new MqttEventSource({ url: mqtt, receiver, clientId: 'app-1' })).toThrow(clientId);
  });

  it('uses the URL options when code sets the same value or none', () => {
    const url = 'nats://127.0.0.1:4222?subject_prefix=fleet&stream=FLEET';
    const transport = new JetStreamEventTransport({ ...robot, url, subjectPrefix: 'fleet' });
    expect(transport.description).toBe('nats://127.0.0.1:4222 stream FLEET');
    expect(transport.subjectOf({ server: 'nav', task_id: 't', type: 'progress' })).toBe(
      'fleet.nav.t.progress',
    );
    const mqtt = new MqttEventTransport({ ...robot, url: 'mqtt://127.0.0.1:1883?topic_prefix=fleet/a' });
    expect(mqtt.topicOf({ server: 'nav', task_id: 't', type: 'progress' })).toBe('fleet/a/nav/t/progress');
  });
});
