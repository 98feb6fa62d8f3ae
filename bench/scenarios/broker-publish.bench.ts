import { randomBytes } from 'node:crypto';
import { type EventTransport, EventPoster, systemClock, type TaskEvent } from '@robot-mcp-kit/core';
import {
  BROKER_HEADERS,
  EVENT_CONTENT_TYPE,
  JetStreamEventTransport,
  MqttEventTransport,
  signMessage,
} from '@robot-mcp-kit/brokers';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import mqtt from 'mqtt';
import { interleavedEvents } from '../fixtures/bench-events.js';
import { batchSide, interleave } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

// Issue 28: the kit's broker transports through the poster against a bare client publishing the
// same bytes (payload, signed properties / headers, topic / subject) to the same broker, one
// message in flight per task, at 1 and at 16 tasks. A plain subscriber (MQTT) or consumer
// (JetStream) counts the arrivals of both sides; a round ends when it counted the whole batch.
// Needs Mosquitto on 127.0.0.1:1883 and NATS with JetStream on 127.0.0.1:4222.
const SECRET = 'bench-secret-0123456789';
const SERVER = 'bench';
const EXPIRY_S = 600;

/**
 * Counts arrivals and wakes a waiter when a count is reached: no polling, so waiting costs
 * neither side CPU (a setImmediate loop spinning while the poster sends was charged to the kit).
 */
class ArrivalCounter {
  count = 0;
  private waiter: { target: number; resolve: () => void } | undefined;

  add(): void {
    this.count += 1;
    if (this.waiter && this.count >= this.waiter.target) {
      this.waiter.resolve();
      this.waiter = undefined;
    }
  }

  /** Resolves once `target` arrivals were counted; fails the scenario after 120 s. */
  reach(target: number): Promise<void> {
    if (this.count >= target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new BenchCheckError(`${this.count} of ${target} arrived in 120 s`)),
        120_000,
      );
      this.waiter = {
        target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }
}

/** One broker under test: the kit transport, the bare publish of one event, the arrival count. */
interface BrokerRig {
  readonly transport: EventTransport & { open(): Promise<void> };
  /** Publishes one event as the kit would, awaiting the broker's acknowledgement. */
  bare(event: TaskEvent): Promise<void>;
  readonly arrivals: ArrivalCounter;
  close(): Promise<void>;
}

function delivery(event: TaskEvent) {
  return { event, body: JSON.stringify(event), attempt: 1 };
}

async function mqttRig(prefix: string): Promise<BrokerRig> {
  const url = 'mqtt://127.0.0.1:1883';
  const arrivals = new ArrivalCounter();
  const counter = await mqtt.connectAsync(url, { protocolVersion: 5, clientId: `${prefix}-count` });
  counter.on('message', () => arrivals.add());
  await counter.subscribeAsync(`${prefix}/#`, { qos: 1 });
  const transport = new MqttEventTransport({ url, secret: SECRET, serverName: SERVER, topicPrefix: prefix });
  const client = await mqtt.connectAsync(url, { protocolVersion: 5, clientId: `${prefix}-bare` });
  return {
    transport,
    async bare(event) {
      const { payload, headers } = signMessage(delivery(event), SERVER, SECRET, systemClock);
      await client.publishAsync(transport.topicOf(event), payload, {
        qos: 1,
        properties: {
          contentType: EVENT_CONTENT_TYPE,
          payloadFormatIndicator: true,
          messageExpiryInterval: EXPIRY_S,
          userProperties: { ...headers },
        },
      });
    },
    arrivals,
    async close() {
      await client.endAsync(true);
      await counter.endAsync(true);
    },
  };
}

async function jetStreamRig(prefix: string): Promise<BrokerRig> {
  const stream = { name: prefix.toUpperCase(), maxAgeS: 300, retention: 'limits' as const };
  const transport = new JetStreamEventTransport({
    url: 'nats://127.0.0.1:4222',
    secret: SECRET,
    serverName: SERVER,
    subjectPrefix: prefix,
    stream,
  });
  await transport.open(); // creates the stream the bare side publishes to as well
  // The counting consumer and the bare publisher each on their own connection, as the kit's
  // transport is on its own.
  const nc = await connect({ servers: '127.0.0.1:4222' });
  const publisher = await connect({ servers: '127.0.0.1:4222' });
  const js = jetstream(publisher);
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(stream.name, {
    durable_name: 'count',
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.New,
  });
  const arrivals = new ArrivalCounter();
  const consumer = await jetstream(nc).consumers.get(stream.name, 'count');
  const messages = await consumer.consume({ max_messages: 256 });
  void (async () => {
    for await (const _message of messages) arrivals.add();
  })();
  return {
    transport,
    async bare(event) {
      const { payload, headers } = signMessage(delivery(event), SERVER, SECRET, systemClock);
      const h = natsHeaders();
      for (const [name, value] of Object.entries(headers)) h.set(name, value);
      h.set(BROKER_HEADERS.contentType, EVENT_CONTENT_TYPE);
      await js.publish(transport.subjectOf(event), payload, { msgID: event.event_id, headers: h });
    },
    arrivals,
    async close() {
      await messages.close();
      await jsm.streams.delete(stream.name).catch(() => undefined);
      await publisher.close();
      await nc.close();
    },
  };
}

/** The bare side: one sequential publish loop per task, the tasks side by side. */
async function bareBatch(rig: BrokerRig, tasks: number, perTask: number): Promise<number> {
  const events = interleavedEvents(tasks, perTask);
  const target = rig.arrivals.count + events.length;
  const byTask = new Map<string, TaskEvent[]>();
  for (const event of events) byTask.set(event.task_id, [...(byTask.get(event.task_id) ?? []), event]);
  await Promise.all(
    [...byTask.values()].map(async (list) => {
      for (const event of list) await rig.bare(event);
    }),
  );
  await rig.arrivals.reach(target);
  return events.length;
}

/** The kit side: every event posted to the poster (one in flight per task), then counted. */
async function kitBatch(
  rig: BrokerRig,
  poster: EventPoster,
  tasks: number,
  perTask: number,
): Promise<number> {
  const events = interleavedEvents(tasks, perTask);
  const target = rig.arrivals.count + events.length;
  for (const event of events) poster.post(event);
  await rig.arrivals.reach(target);
  if (poster.stats.dropped > 0 || poster.stats.retried > 0) {
    throw new BenchCheckError(`poster retried or dropped: ${JSON.stringify(poster.stats)}`);
  }
  return events.length;
}

/** MQTT and JetStream publishing through the kit vs bare same-bytes loops, 1 and 16 tasks. */
export async function brokerPublishBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const plan = sized(ctx, { warmupRounds: 1, rounds: 2 }, { warmupRounds: 2, rounds: 12 });
  const perRound = sized(ctx, 160, 640);
  const kinds = [
    { id: 'mqtt', name: 'MQTT 5 (Mosquitto, QoS 1)', bare: 'bare mqtt.js publishAsync loop', make: mqttRig },
    { id: 'jetstream', name: 'NATS JetStream', bare: 'bare js.publish loop', make: jetStreamRig },
  ];
  const rows: BenchRow[] = [];
  for (const kind of kinds) {
    for (const tasks of [1, 16]) {
      ctx.log(`broker publish: ${kind.name}, kit vs ${kind.bare}, ${tasks} task(s)`);
      const rig = await kind.make(`benchpub${randomBytes(4).toString('hex')}`);
      const poster = new EventPoster({ serverName: SERVER, transport: rig.transport, maxQueue: 100_000 });
      try {
        await poster.open();
        const perTask = perRound / tasks;
        const s = await interleave(
          batchSide('kit', () => kitBatch(rig, poster, tasks, perTask)),
          batchSide('bare', () => bareBatch(rig, tasks, perTask)),
          plan,
        );
        rows.push(
          makeRow(
            {
              id: `publish-${kind.id}-${tasks}`,
              scenario: `publish through the kit's ${kind.name} transport + poster, ${tasks} task(s)`,
              baseline: `${kind.bare}, same bytes, one in flight per task`,
              unit: 'events/s',
              target: { op: '>=', value: 0.9 },
              notes: 'round = the batch published and counted by a plain subscriber/consumer',
            },
            s.subject,
            s.baseline,
            s.cpu,
          ),
        );
      } finally {
        await poster.aclose({ timeoutMs: 1000 });
        await rig.close();
      }
    }
  }
  return rows;
}
