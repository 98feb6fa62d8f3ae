import { describe, expect, it } from '@jest/globals';
import { ConfigError, EventPoster, signatureHeader, type TaskEvent, verify } from '@robot-mcp-kit/core';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { JetStreamEventSource, JetStreamEventTransport } from '@robot-mcp-kit/brokers';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  freePort,
  jetStreamTransport,
  makeEvent,
  natsScope,
  SECRET,
  SHARED_NATS,
  until,
  useCleanups,
} from './broker-test.helpers.js';

const cleanups = useCleanups();
const scope = () => natsScope(cleanups);
const transportFor = (prefix: string, stream: string): JetStreamEventTransport =>
  jetStreamTransport(prefix, stream, cleanups);

function receiverInto(delivered: TaskEvent[]): EventReceiver {
  return createEventReceiver({
    secrets: { sleeper: SECRET },
    onEvent: (event) => void delivered.push(event),
  });
}

async function sourceFor(prefix: string, stream: string, receiver: EventReceiver, durable = 'app') {
  const source = new JetStreamEventSource({
    url: SHARED_NATS,
    receiver,
    durable,
    subjectPrefix: prefix,
    stream: { name: stream, maxAgeS: 600 },
  });
  await source.start();
  cleanups.push(() => source.close());
  return source;
}

describe('JetStreamEventTransport on the real NATS JetStream', () => {
  it('creates a file-backed stream and stores the signed event once per event_id', async () => {
    const { prefix, stream, nc } = await scope();
    const transport = transportFor(prefix, stream);
    await transport.open();
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    expect(info.config).toMatchObject({
      subjects: [`${prefix}.>`],
      storage: StorageType.File,
      retention: 'limits',
    });

    const event = makeEvent('sleeper', 'slee-a1b2c3', 1);
    const body = JSON.stringify(event.toJSON());
    expect(await transport.send({ event, body, attempt: 1 })).toEqual({ ok: true });
    expect(await transport.send({ event, body, attempt: 2 })).toEqual({ ok: true });
    expect((await jsm.streams.info(stream)).state.messages).toBe(1);

    const stored = await jsm.streams.getMessage(stream, { seq: 1 });
    expect(stored!.subject).toBe(`${prefix}.sleeper.slee-a1b2c3.progress`);
    expect(stored!.string()).toBe(body);
    const h = stored!.header;
    expect(h.get('Nats-Msg-Id')).toBe(event.event_id);
    expect(h.get('Content-Type')).toBe('application/json');
    expect(h.get('X-RVC-Server')).toBe('sleeper');
    expect(h.get('X-RVC-Signature')).toBe(signatureHeader(SECRET, h.get('X-RVC-Timestamp'), body));
    expect(verify(SECRET, h.get('X-RVC-Timestamp'), Buffer.from(body), h.get('X-RVC-Signature'))).toBe(true);
  });

  it('delivers a poster stream verified and in order through a durable consumer', async () => {
    const { prefix, stream } = await scope();
    const delivered: TaskEvent[] = [];
    const receiver = receiverInto(delivered);
    const poster = new EventPoster({ serverName: 'sleeper', transport: transportFor(prefix, stream) });
    await poster.open();
    await sourceFor(prefix, stream, receiver);
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
    expect(receiver.stats()).toMatchObject({ delivered: 60, gaps: 0 });
    expect((await poster.aclose({ timeoutMs: 5000 })).dropped).toBe(0);
  });

  it('an app restart resumes the durable consumer where it stopped', async () => {
    const { prefix, stream } = await scope();
    const first: TaskEvent[] = [];
    const source = await sourceFor(prefix, stream, receiverInto(first), 'resume');
    const poster = new EventPoster({ serverName: 'sleeper', transport: transportFor(prefix, stream) });
    for (let seq = 1; seq <= 5; seq += 1) poster.post(makeEvent('sleeper', 'slee-00000a', seq));
    await until(() => first.length === 5, 'the first five');
    await source.close();
    for (let seq = 6; seq <= 10; seq += 1) poster.post(makeEvent('sleeper', 'slee-00000a', seq));
    await poster.aclose({ timeoutMs: 5000 });
    const second: TaskEvent[] = [];
    await sourceFor(prefix, stream, receiverInto(second), 'resume');
    await until(() => second.length === 5, 'the five published while away');
    expect(second.map((e) => e.seq)).toEqual([6, 7, 8, 9, 10]);
  });

  it('terminates a tampered message and keeps consuming', async () => {
    const { prefix, stream, nc } = await scope();
    const delivered: TaskEvent[] = [];
    const receiver = receiverInto(delivered);
    await transportFor(prefix, stream).open();
    const source = await sourceFor(prefix, stream, receiver);
    const js = jetstream(nc);
    const event = makeEvent('sleeper', 'slee-bad001', 1);
    const body = JSON.stringify(event.toJSON());
    const ts = String(Math.floor(Date.now() / 1000));
    const signed = (signature: string) => {
      const h = natsHeaders();
      h.set('X-RVC-Server', 'sleeper');
      h.set('X-RVC-Timestamp', ts);
      h.set('X-RVC-Signature', signature);
      return h;
    };
    const subject = `${prefix}.sleeper.slee-bad001.progress`;
    await js.publish(subject, body.replace('"percent":1', '"percent":99'), {
      headers: signed(signatureHeader(SECRET, ts, body)),
    });
    await js.publish(subject, body, { headers: signed(signatureHeader('wrong-secret', ts, body)) });
    await js.publish(subject, body, { headers: signed(signatureHeader(SECRET, ts, body)) });
    await until(() => delivered.length === 1, 'the genuine event');
    expect(delivered[0]!.payload).toEqual({ percent: 1 });
    await until(() => source.stats().rejected === 2, 'two rejections');
    expect(receiver.stats().byStatus[401]).toBe(2);
  });

  it('two app instances on one durable consumer consume every event once', async () => {
    const { prefix, stream } = await scope();
    const seen: TaskEvent[][] = [[], []];
    await transportFor(prefix, stream).open();
    await sourceFor(prefix, stream, receiverInto(seen[0]!), 'shared');
    await sourceFor(prefix, stream, receiverInto(seen[1]!), 'shared');
    const poster = new EventPoster({ serverName: 'sleeper', transport: transportFor(prefix, stream) });
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
    expect(all).toHaveLength(40);
    expect(new Set(all)).toEqual(ids);
  });

  it('open() refuses an existing stream that does not store the prefix, naming the fix', async () => {
    const { prefix, stream, nc } = await scope();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${prefix}other.>`], storage: StorageType.Memory });
    const transport = transportFor(prefix, stream);
    const err = await transport.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(
      `stream ${stream} does not store ${prefix}.sleeper.probe.progress`,
    );
  });

  it('open() fails fast with the fix when no NATS listens', async () => {
    const port = await freePort();
    const transport = new JetStreamEventTransport({
      url: `nats://127.0.0.1:${port}`,
      secret: SECRET,
      serverName: 'sleeper',
      connectTimeoutMs: 3000,
    });
    const err = await transport.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(
      /^RVC_CALLBACK_URL: cannot connect to NATS at 127\.0\.0\.1:\d+ .*start nats-server with JetStream/,
    );
  });

  it.each([
    [{ url: 'mqtt://127.0.0.1:4222' }, /url: must use nats or tls, not mqtt/],
    [{ subjectPrefix: 'a.*' }, /subjectPrefix: must be letters, digits/],
    [{ stream: { name: 'a.b' } }, /stream\.name: must be 1-64 letters/],
    [
      { stream: { retention: 'forever' as 'limits' } },
      /stream\.retention: must be limits, interest or workqueue/,
    ],
  ])('refuses bad options %p', (override, message) => {
    expect(
      () =>
        new JetStreamEventTransport({ url: SHARED_NATS, secret: SECRET, serverName: 'sleeper', ...override }),
    ).toThrow(message);
  });
});
