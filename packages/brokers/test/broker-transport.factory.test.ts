import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@robot-mcp-kit/core';
import {
  createBrokerEventTransport,
  JetStreamEventTransport,
  MqttEventTransport,
} from '@robot-mcp-kit/brokers';

const base = { secret: 's', serverName: 'navigation', messageExpiryS: 600, logger: silentLogger };

describe('createBrokerEventTransport (RVC_CALLBACK_URL query parameters)', () => {
  it('builds an MQTT transport with the topic prefix from the URL', () => {
    const t = createBrokerEventTransport({
      ...base,
      url: 'mqtt://u:p@127.0.0.1:1883?topic_prefix=fleet/a&client_id=nav-1',
    });
    expect(t).toBeInstanceOf(MqttEventTransport);
    expect(t.description).toBe('mqtt://127.0.0.1:1883');
    expect(
      (t as MqttEventTransport).topicOf({ server: 'navigation', task_id: 'nav/7+#', type: 'task_done' }),
    ).toBe('fleet/a/navigation/nav%2F7%2B%23/task_done');
  });

  it('builds a JetStream transport with subject prefix and stream from the URL', () => {
    const t = createBrokerEventTransport({
      ...base,
      url: 'nats://127.0.0.1:4222?subject_prefix=fleet&stream=FLEET&retention=workqueue&max_age_s=3600',
    });
    expect(t).toBeInstanceOf(JetStreamEventTransport);
    expect(t.description).toBe('nats://127.0.0.1:4222 stream FLEET');
    expect(
      (t as JetStreamEventTransport).subjectOf({ server: 'nav', task_id: 'a.b*c>', type: 'progress' }),
    ).toBe('fleet.nav.a%2Eb%2Ac%3E.progress');
  });

  it.each([
    [
      'mqtt://127.0.0.1:1883?stream=X',
      /unknown query parameter "stream" for mqtt; use topic_prefix, client_id/,
    ],
    ['nats://127.0.0.1:4222?max_age_s=soon', /max_age_s must be a positive whole number of seconds/],
    [
      'nats://127.0.0.1:4222?retention=forever',
      /retention must be limits, interest or workqueue; got "forever"/,
    ],
    ['http://127.0.0.1:1883', /must use mqtt, mqtts or nats, not http/],
  ])('refuses %s with the fix', (url, message) => {
    expect(() => createBrokerEventTransport({ ...base, url })).toThrow(message);
  });
});
