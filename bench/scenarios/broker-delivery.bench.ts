import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { EventPoster, type EventTransport } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  JetStreamEventSource,
  JetStreamEventTransport,
  MqttEventSource,
  MqttEventTransport,
} from '@robot-mcp-kit/brokers';
import { interleavedEvents } from '../fixtures/bench-events.js';
import { batchSide, interleave } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

// End to end through the receiver package: poster → broker → source → receiver → onEvent,
// against poster → HTTP POST → receiver → onEvent, in the same process, alternating rounds.
// Needs Mosquitto on 127.0.0.1:1883 and NATS with JetStream on 127.0.0.1:4222.
const SECRET = 'bench-secret-0123456789';

interface Pipeline {
  readonly poster: EventPoster;
  readonly receiver: EventReceiver;
  close(): Promise<void>;
}

function newReceiver(): EventReceiver {
  return createEventReceiver({ secrets: { bench: SECRET }, onEvent: () => undefined });
}

function newPoster(transport: EventTransport): EventPoster {
  return new EventPoster({ serverName: 'bench', transport, maxQueue: 100_000 });
}

async function httpPipeline(): Promise<Pipeline> {
  const receiver = newReceiver();
  const server = http.createServer(receiver.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  const poster = newPoster(new HttpEventTransport({ url, secret: SECRET, serverName: 'bench' }));
  return {
    poster,
    receiver,
    close: async () => {
      await poster.aclose({ timeoutMs: 1000 });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function mqttPipeline(prefix: string): Promise<Pipeline> {
  const url = 'mqtt://127.0.0.1:1883';
  const receiver = newReceiver();
  const source = new MqttEventSource({
    url,
    receiver,
    clientId: prefix,
    topicPrefix: prefix,
    sessionExpiryS: 60,
  });
  await source.start();
  const transport = new MqttEventTransport({ url, secret: SECRET, serverName: 'bench', topicPrefix: prefix });
  const poster = newPoster(transport);
  await poster.open();
  return { poster, receiver, close: closer(poster, source) };
}

async function jetStreamPipeline(prefix: string): Promise<Pipeline> {
  const url = 'nats://127.0.0.1:4222';
  const stream = { name: prefix.toUpperCase(), maxAgeS: 300, retention: 'workqueue' as const };
  const receiver = newReceiver();
  const transport = new JetStreamEventTransport({
    url,
    secret: SECRET,
    serverName: 'bench',
    subjectPrefix: prefix,
    stream,
  });
  const poster = newPoster(transport);
  await poster.open();
  const source = new JetStreamEventSource({ url, receiver, durable: prefix, subjectPrefix: prefix, stream });
  await source.start();
  const close = closer(poster, source);
  return {
    poster,
    receiver,
    close: async () => {
      await close();
      const nc = await connect({ servers: '127.0.0.1:4222' });
      await (await jetstreamManager(nc)).streams.delete(stream.name).catch(() => undefined);
      await nc.close();
    },
  };
}

function closer(poster: EventPoster, source: { close(): Promise<void> }): () => Promise<void> {
  return async () => {
    await poster.aclose({ timeoutMs: 1000 });
    await source.close();
  };
}

/** Posts a batch and waits until the receiver delivered all of it; returns how many. */
async function deliverThrough(pipeline: Pipeline, tasks: number, perTask: number): Promise<number> {
  const events = interleavedEvents(tasks, perTask);
  const before = pipeline.receiver.stats().delivered;
  for (const event of events) pipeline.poster.post(event);
  const deadline = Date.now() + 120_000;
  while (pipeline.receiver.stats().delivered - before < events.length) {
    if (Date.now() > deadline)
      throw new BenchCheckError(`stuck: ${JSON.stringify(pipeline.receiver.stats())}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
  const stats = pipeline.receiver.stats();
  if (stats.gaps > 0 || stats.late > 0) throw new BenchCheckError(`out of order: ${JSON.stringify(stats)}`);
  return events.length;
}

/** MQTT and JetStream delivery rates against signed HTTP, end to end through the receiver. */
export async function brokerDeliveryBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const tasks = sized(ctx, 8, 16);
  const perTask = sized(ctx, 10, 40);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 2 }, { warmupRounds: 1, rounds: 8 });
  const rows: BenchRow[] = [];
  const kinds = [
    { id: 'delivery-mqtt', name: 'MQTT 5 (Mosquitto, QoS 1)', make: mqttPipeline },
    { id: 'delivery-jetstream', name: 'NATS JetStream (file stream)', make: jetStreamPipeline },
  ];
  for (const kind of kinds) {
    ctx.log(`broker delivery: ${kind.name} vs HTTP, ${tasks} tasks x ${perTask} events`);
    const broker = await kind.make(`bench${randomBytes(4).toString('hex')}`);
    const web = await httpPipeline();
    try {
      const s = await interleave(
        batchSide(kind.name, () => deliverThrough(broker, tasks, perTask)),
        batchSide('HTTP', () => deliverThrough(web, tasks, perTask)),
        plan,
      );
      rows.push(
        makeRow(
          {
            id: kind.id,
            scenario: `event delivery through ${kind.name} to the receiver, ${tasks} tasks`,
            baseline: 'signed HTTP POST to the receiver (default lanes)',
            unit: 'events/s',
            target: { op: '>=', value: 0.3 },
            notes: 'end to end: poster → broker → source → receiver → onEvent; informative target',
          },
          s.subject,
          s.baseline,
        ),
      );
    } finally {
      await broker.close();
      await web.close();
    }
  }
  return rows;
}
