import { afterEach, describe, expect, it } from '@jest/globals';
import { EventPoster } from '@robot-mcp-kit/core';
import mqtt, { type IPublishPacket } from 'mqtt';
import { makeEvent, SECRET, SHARED_MQTT, uniqueName, until } from './broker-test.helpers.js';

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
