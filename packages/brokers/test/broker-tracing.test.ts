import { afterAll, describe, expect, it } from '@jest/globals';
import { SpanKind } from '@opentelemetry/api';
import { EventPoster, type EventTransport, TaskManager } from '@robot-mcp-kit/core';
import { KIT_ATTRIBUTES } from '@robot-mcp-kit/core/telemetry';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { JetStreamEventSource, MqttEventSource } from '@robot-mcp-kit/brokers';
import { jetstreamManager } from '@nats-io/jetstream';
import { TestTelemetry } from '../../../test/support/otel.js';
import {
  jetStreamTransport,
  mqttSpy,
  mqttTransport,
  natsScope,
  SECRET,
  SHARED_MQTT,
  SHARED_NATS,
  uniqueName,
  until,
  useCleanups,
} from './broker-test.helpers.js';

const otel = TestTelemetry.register();
const cleanups = useCleanups();
afterAll(() => otel.disable());

function receiver(): EventReceiver {
  return createEventReceiver({ secrets: { sleeper: SECRET }, onEvent: () => undefined });
}

/** Runs one task whose events go out through `transport`; returns its id once all are delivered. */
async function runTask(transport: EventTransport): Promise<string> {
  const poster = new EventPoster({ serverName: 'sleeper', transport });
  await poster.open();
  const manager = new TaskManager({ serverName: 'sleeper', poster });
  cleanups.push(() => manager.aclose());
  const info = manager.start('sleep', async (ctx) => {
    await ctx.progress({ percent: 50 });
    return { slept: true };
  });
  await manager.whenStopped(info.task_id);
  expect(await poster.flush(30_000)).toBe(true);
  return info.task_id;
}

/** Checks that each delivery span of the task has a receiver span as its child, in the task's trace. */
async function expectContinued(taskId: string, system: string): Promise<string[]> {
  const ofTask = () => otel.finished().filter((s) => s.attributes[KIT_ATTRIBUTES.taskId] === taskId);
  await until(() => ofTask().filter((s) => s.name.startsWith('process ')).length === 2, 'two process spans');
  const task = ofTask().find((s) => s.name === 'task sleep')!;
  const sends = ofTask().filter((s) => s.name.startsWith('send '));
  expect(sends.map((s) => s.name)).toEqual(['send progress', 'send task_done']);
  const traceparents: string[] = [];
  for (const send of sends) {
    expect(send.attributes['messaging.system']).toBe(system);
    expect(send.parentSpanContext?.spanId).toBe(task.spanContext().spanId);
    const child = ofTask().find((s) => s.parentSpanContext?.spanId === send.spanContext().spanId);
    expect(child?.name).toBe(send.name.replace('send', 'process'));
    expect(child?.kind).toBe(SpanKind.SERVER);
    expect(child?.spanContext().traceId).toBe(task.spanContext().traceId);
    traceparents.push(`00-${task.spanContext().traceId}-${send.spanContext().spanId}-01`);
  }
  return traceparents;
}

describe('trace context over brokers', () => {
  it('MQTT 5: the traceparent rides as a user property and the source continues the trace', async () => {
    const prefix = uniqueName('rmk');
    const packets = await mqttSpy(prefix, cleanups);
    const source = new MqttEventSource({
      url: SHARED_MQTT,
      receiver: receiver(),
      clientId: uniqueName('app'),
      topicPrefix: prefix,
      sessionExpiryS: 60,
    });
    await source.start();
    cleanups.push(() => source.close());
    const taskId = await runTask(mqttTransport(prefix, cleanups));
    const traceparents = await expectContinued(taskId, 'mqtt');
    await until(() => packets.length === 2, 'the spy saw both publishes');
    expect(packets.map((p) => p.properties?.userProperties?.traceparent)).toEqual(traceparents);
  });

  it('NATS JetStream: the traceparent rides as a header and the source continues the trace', async () => {
    const { prefix, stream, nc } = await natsScope(cleanups);
    const taskId = await runTask(jetStreamTransport(prefix, stream, cleanups));
    const source = new JetStreamEventSource({
      url: SHARED_NATS,
      receiver: receiver(),
      durable: 'app',
      subjectPrefix: prefix,
      stream: { name: stream, maxAgeS: 600 },
    });
    await source.start();
    cleanups.push(() => source.close());
    const traceparents = await expectContinued(taskId, 'nats');

    const jsm = await jetstreamManager(nc);
    const stored = [
      await jsm.streams.getMessage(stream, { seq: 1 }),
      await jsm.streams.getMessage(stream, { seq: 2 }),
    ];
    expect(stored.map((m) => m?.header.get('traceparent'))).toEqual(traceparents);
  });
});
