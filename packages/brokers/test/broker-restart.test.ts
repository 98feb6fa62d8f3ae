import { afterEach, describe, expect, it } from '@jest/globals';
import { type EventTransport, EventPoster, type TaskEvent } from '@robot-mcp-kit/core';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import {
  JetStreamEventSource,
  JetStreamEventTransport,
  MqttEventSource,
  MqttEventTransport,
} from '@robot-mcp-kit/brokers';
import { makeEvent, PrivateBroker, SECRET, until } from './broker-test.helpers.js';

// Each test runs its own broker process on an OS-picked port (the shared machine brokers are
// never restarted) and stops it gracefully mid-stream, as `pkill mosquitto` / `pkill nats-server` do.

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

interface Source {
  start(): Promise<void>;
  close(): Promise<void>;
}

const TASKS = ['slee-00000a', 'slee-00000b', 'slee-00000c'];
const PER_TASK = 30;

/**
 * Posts PER_TASK events for each of TASKS, stops the broker while the first half is flowing,
 * posts more while it is down, starts it again, and checks that every event arrives once and in seq order per task.
 */
async function restartMidStream(
  broker: PrivateBroker,
  transport: EventTransport,
  makeSource: (receiver: ReturnType<typeof createEventReceiver>) => Source,
): Promise<void> {
  const delivered: TaskEvent[] = [];
  const receiver = createEventReceiver({
    secrets: { sleeper: SECRET },
    onEvent: (e) => void delivered.push(e),
  });
  const source = makeSource(receiver);
  await source.start();
  cleanups.push(() => source.close());
  const poster = new EventPoster({ serverName: 'sleeper', transport });
  cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
  await poster.open();

  const total = TASKS.length * PER_TASK;
  let posted = 0;
  const postUpTo = (count: number): void => {
    for (; posted < count; posted += 1) {
      const seq = Math.floor(posted / TASKS.length) + 1;
      const type = seq === PER_TASK ? 'task_done' : 'progress';
      poster.post(makeEvent('sleeper', TASKS[posted % TASKS.length]!, seq, type));
    }
  };
  postUpTo(total / 2);
  // Stop while the first half is still flowing: some events are stored, some in flight.
  await until(() => delivered.length >= 5, 'the first events before the restart');
  await broker.down();
  postUpTo((3 * total) / 4); // posted while the broker is down: the poster retries them
  await until(() => poster.stats.retried > 0, 'a failed attempt while the broker is down');
  await broker.up();
  postUpTo(total);
  await until(() => new Set(delivered.map((e) => e.event_id)).size === total, `all ${total} events`, 90_000);

  for (const task of TASKS) {
    expect(delivered.filter((e) => e.task_id === task).map((e) => e.seq)).toEqual(
      Array.from({ length: PER_TASK }, (_, i) => i + 1),
    );
  }
  expect(delivered).toHaveLength(total);
  expect(receiver.stats()).toMatchObject({ delivered: total, gaps: 0, late: 0 });
  const report = await poster.aclose({ timeoutMs: 10_000 });
  expect(report).toMatchObject({ dropped: 0, unflushed: 0 });
}

describe('broker restart mid-stream loses nothing and keeps order', () => {
  it('Mosquitto: QoS 1 publisher and a persistent-session subscriber', async () => {
    const broker = await PrivateBroker.start('mosquitto');
    cleanups.push(() => broker.dispose());
    const transport = new MqttEventTransport({ url: broker.url, secret: SECRET, serverName: 'sleeper' });
    cleanups.push(() => transport.close());
    await restartMidStream(
      broker,
      transport,
      (receiver) =>
        new MqttEventSource({ url: broker.url, receiver, clientId: 'restart-app', sessionExpiryS: 600 }),
    );
  }, 150_000);

  it('NATS JetStream: file-backed stream and a durable consumer', async () => {
    const broker = await PrivateBroker.start('nats');
    cleanups.push(() => broker.dispose());
    const transport = new JetStreamEventTransport({ url: broker.url, secret: SECRET, serverName: 'sleeper' });
    cleanups.push(() => transport.close());
    await transport.open();
    await restartMidStream(
      broker,
      transport,
      (receiver) =>
        new JetStreamEventSource({ url: broker.url, receiver, durable: 'restart-app', ackWaitMs: 5_000 }),
    );
  }, 150_000);
});
