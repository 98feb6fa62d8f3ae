import { describe, expect, it } from '@jest/globals';
import { ConfigError, EventPoster, signatureHeader, type TaskEvent, verify } from '@robot-mcp-kit/core';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { MqttEventSource, MqttEventTransport } from '@robot-mcp-kit/brokers';
import mqtt from 'mqtt';
import {
  freePort,
  makeEvent,
  mqttSpy,
  mqttTransport,
  SECRET,
  SHARED_MQTT,
  uniqueName,
  until,
  useCleanups,
} from './broker-test.helpers.js';

const cleanups = useCleanups();
const transportFor = (prefix: string, server?: string): MqttEventTransport =>
  mqttTransport(prefix, cleanups, server);

function receiverInto(delivered: TaskEvent[]): EventReceiver {
  return createEventReceiver({
    secrets: { sleeper: SECRET },
    onEvent: (event) => void delivered.push(event),
  });
}

async function sourceFor(
  prefix: string,
  receiver: EventReceiver,
  clientId = uniqueName('app'),
  group?: string,
) {
  const source = new MqttEventSource({
    url: SHARED_MQTT,
    receiver,
    clientId,
    topicPrefix: prefix,
    sessionExpiryS: 60,
    ...(group ? { group } : {}),
  });
  await source.start();
  cleanups.push(() => source.close());
  return source;
}

describe('MqttEventTransport on the real Mosquitto', () => {
  it('publishes QoS 1 with the exact JSON bytes and signed MQTT 5 user properties', async () => {
    const prefix = uniqueName('rmk');
    const packets = await mqttSpy(prefix, cleanups);

    const transport = transportFor(prefix);
    await transport.open();
    const event = makeEvent('sleeper', 'slee-a1b2c3', 1);
    const body = JSON.stringify(event.toJSON());
    expect(await transport.send({ event, body, attempt: 1 })).toEqual({ ok: true });
    await until(() => packets.length === 1, 'the spy to see the message');

    const packet = packets[0]!;
    expect(packet.topic).toBe(`${prefix}/sleeper/slee-a1b2c3/progress`);
    expect(packet.qos).toBe(1);
    expect(packet.payload.toString()).toBe(body);
    const props = packet.properties!;
    expect(props.contentType).toBe('application/json');
    expect(props.messageExpiryInterval).toBeGreaterThan(590);
    const user = props.userProperties as Record<string, string>;
    expect(user['X-RVC-Server']).toBe('sleeper');
    expect(user['X-RVC-Event-Id']).toBe(event.event_id);
    expect(user['X-RVC-Signature']).toBe(signatureHeader(SECRET, user['X-RVC-Timestamp']!, body));
    expect(verify(SECRET, user['X-RVC-Timestamp'], Buffer.from(body), user['X-RVC-Signature'])).toBe(true);
  });

  it('delivers a poster stream verified, deduplicated and in order through the receiver pipeline', async () => {
    const prefix = uniqueName('rmk');
    const delivered: TaskEvent[] = [];
    const receiver = receiverInto(delivered);
    await sourceFor(prefix, receiver);
    const poster = new EventPoster({ serverName: 'sleeper', transport: transportFor(prefix) });
    await poster.open();
    const tasks = ['slee-000001', 'slee-000002', 'slee-000003'];
    for (let seq = 1; seq <= 20; seq += 1) {
      for (const task of tasks)
        poster.post(makeEvent('sleeper', task, seq, seq === 20 ? 'task_done' : 'progress'));
    }
    await until(() => delivered.length === 60, 'all 60 events', 60_000);
    for (const task of tasks) {
      expect(delivered.filter((e) => e.task_id === task).map((e) => e.seq)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    }
    expect(receiver.stats()).toMatchObject({ delivered: 60, gaps: 0, duplicates: 0 });
    expect((await poster.aclose({ timeoutMs: 5000 })).dropped).toBe(0);
  });

  it('rejects a tampered or unsigned message and keeps consuming', async () => {
    const prefix = uniqueName('rmk');
    const delivered: TaskEvent[] = [];
    const receiver = receiverInto(delivered);
    const source = await sourceFor(prefix, receiver);
    const raw = await mqtt.connectAsync(SHARED_MQTT, { protocolVersion: 5 });
    cleanups.push(() => raw.endAsync(true));
    const event = makeEvent('sleeper', 'slee-bad001', 1);
    const body = JSON.stringify(event.toJSON());
    const ts = String(Math.floor(Date.now() / 1000));
    const tampered = body.replace('"percent":1', '"percent":99');
    const props = (signature: string) => ({
      contentType: 'application/json',
      userProperties: { 'X-RVC-Server': 'sleeper', 'X-RVC-Timestamp': ts, 'X-RVC-Signature': signature },
    });
    await raw.publishAsync(`${prefix}/sleeper/slee-bad001/progress`, tampered, {
      qos: 1,
      properties: props(signatureHeader(SECRET, ts, body)),
    });
    await raw.publishAsync(`${prefix}/sleeper/slee-bad001/progress`, body, { qos: 1, properties: props('') });
    await raw.publishAsync(`${prefix}/sleeper/slee-bad001/progress`, body, {
      qos: 1,
      properties: props(signatureHeader(SECRET, ts, body)),
    });
    await until(() => source.stats().acked === 1, 'the genuine event acknowledged');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.payload).toEqual({ percent: 1 });
    expect(source.stats()).toMatchObject({ acked: 1, rejected: 2 });
    expect(receiver.stats().byStatus[401]).toBe(2);
  });

  it('two app instances in one shared-subscription group consume every event once', async () => {
    const prefix = uniqueName('rmk');
    const group = uniqueName('g');
    const seen: TaskEvent[][] = [[], []];
    await sourceFor(prefix, receiverInto(seen[0]!), uniqueName('app'), group);
    await sourceFor(prefix, receiverInto(seen[1]!), uniqueName('app'), group);
    const poster = new EventPoster({ serverName: 'sleeper', transport: transportFor(prefix) });
    const ids = new Set<string>();
    for (let t = 0; t < 10; t += 1) {
      for (let seq = 1; seq <= 4; seq += 1) {
        const event = makeEvent('sleeper', `slee-00000${t}`, seq);
        ids.add(event.event_id);
        poster.post(event);
      }
    }
    await until(() => seen[0]!.length + seen[1]!.length >= 40, 'all 40 events', 60_000);
    await poster.aclose({ timeoutMs: 5000 });
    const all = [...seen[0]!, ...seen[1]!].map((e) => e.event_id);
    expect(new Set(all)).toEqual(ids);
    expect(all).toHaveLength(40);
    expect(seen[0]!.length).toBeGreaterThan(0);
    expect(seen[1]!.length).toBeGreaterThan(0);
  });

  it('open() fails fast with the fix when no broker listens', async () => {
    const port = await freePort();
    const transport = new MqttEventTransport({
      url: `mqtt://127.0.0.1:${port}`,
      secret: SECRET,
      serverName: 'sleeper',
      connectTimeoutMs: 3000,
    });
    cleanups.push(() => transport.close());
    const err = await transport.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(
      /^RVC_CALLBACK_URL: cannot connect to the MQTT broker at mqtt:\/\/127\.0\.0\.1:\d+ .*start the broker/,
    );
  });

  it.each([
    [{ url: 'http://127.0.0.1:1883' }, /url: must use mqtt or mqtts, not http/],
    [{ url: 'not a url' }, /url: is not a valid URL/],
    [{ topicPrefix: 'a/#' }, /topicPrefix: must be letters, digits/],
    [{ messageExpiryS: 0 }, /messageExpiryS: must be a positive whole number/],
    [{ secret: '' }, /secret: must be a non-empty string/],
  ])('refuses bad options %p', (override, message) => {
    expect(
      () => new MqttEventTransport({ url: SHARED_MQTT, secret: SECRET, serverName: 'sleeper', ...override }),
    ).toThrow(message);
  });
});
