import { afterEach, describe, expect, it } from '@jest/globals';
import { createEventTransportFromEnv, EventPoster } from '@robot-mcp-kit/core';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import mqtt, { type IPublishPacket } from 'mqtt';
import { makeEvent, SECRET, SHARED_MQTT, SHARED_NATS, uniqueName, until } from './broker-test.helpers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

describe('EventPoster.fromEnv with RVC_CALLBACK_URL=mqtt://… (core loads this package)', () => {
  it('publishes through the loaded MQTT transport with the poster retry cap as message expiry', async () => {
    const prefix = uniqueName('rmk');
    const spy = await mqtt.connectAsync(SHARED_MQTT, { protocolVersion: 5 });
    cleanups.push(() => spy.endAsync(true));
    const packets: IPublishPacket[] = [];
    spy.on('message', (_t, _p, packet) => packets.push(packet));
    await spy.subscribeAsync(`${prefix}/#`, { qos: 1 });

    const poster = EventPoster.fromEnv('sleeper', {
      env: { RVC_CALLBACK_URL: `${SHARED_MQTT}?topic_prefix=${prefix}`, RVC_EVENT_SECRET: SECRET },
      maxRetryMs: 120_000,
    });
    cleanups.push(() => poster.aclose({ timeoutMs: 1000 }));
    expect(poster.target).toBe('mqtt://127.0.0.1:1883');
    await poster.open();
    poster.post(makeEvent('sleeper', 'slee-0000aa', 1));
    await until(() => packets.length === 1, 'the published event');
    expect(packets[0]!.topic).toBe(`${prefix}/sleeper/slee-0000aa/progress`);
    expect(packets[0]!.properties?.messageExpiryInterval).toBeGreaterThan(110);
    expect(packets[0]!.properties?.messageExpiryInterval).toBeLessThanOrEqual(120);
  });
});

/** A stream of this test's own (not the shared default RMK_EVENTS), deleted after it. */
function ownStream(): string {
  const name = uniqueName('INFLIGHT').replace(/[^A-Za-z0-9_-]/g, '_');
  cleanups.push(async () => {
    const nc = await connect({ servers: SHARED_NATS.replace('nats://', '') });
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => undefined);
    await nc.close();
  });
  return name;
}

describe('the in-flight window a broker transport asks the poster for (issue 28)', () => {
  it.each([
    ['mqtt', () => `${SHARED_MQTT}?topic_prefix=${uniqueName('rmk')}`, 20],
    ['nats', () => `${SHARED_NATS}?subject_prefix=${uniqueName('rmk')}&stream=${ownStream()}`, 64],
  ])(
    '%s: none before the package is loaded, then the transport’s through the loader',
    async (_kind, url, expected) => {
      const transport = createEventTransportFromEnv('sleeper', {
        env: { RVC_CALLBACK_URL: url(), RVC_EVENT_SECRET: SECRET },
      });
      cleanups.push(async () => transport.close?.());
      expect(transport.maxInFlight).toBeUndefined(); // the poster's default of 8 until then
      await transport.open!();
      expect(transport.maxInFlight).toBe(expected);
    },
  );
});
