import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { JetStreamEventSource, MqttEventSource } from '@robot-mcp-kit/brokers';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { callJson, ChildServers, exitOf } from '../../../test/support/child-server.js';
import { freePort, SECRET, SHARED_MQTT, SHARED_NATS, uniqueName, until } from './broker-test.helpers.js';

// The built sleeper (`examples/sleeper/dist/main.js`, run `npm run build` first) as a child
// process with RVC_CALLBACK_URL pointing at a broker: core loads @robot-mcp-kit/brokers by the
// URL scheme, and the app side consumes with the receiver package.
const main = fileURLToPath(new URL('../../../examples/sleeper/dist/main.js', import.meta.url));
const servers = new ChildServers(main, { RVC_EVENT_SECRET: SECRET, LOG_LEVEL: 'error' });
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  await servers.cleanup();
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

interface Scheme {
  readonly name: string;
  callbackUrl(prefix: string): string;
  source(
    prefix: string,
    receiver: ReturnType<typeof createEventReceiver>,
  ): { start(): Promise<void>; close(): Promise<void> };
}

const SCHEMES: Scheme[] = [
  {
    name: 'mqtt',
    callbackUrl: (prefix) => `${SHARED_MQTT}?topic_prefix=${prefix}`,
    source: (prefix, receiver) =>
      new MqttEventSource({
        url: SHARED_MQTT,
        receiver,
        clientId: uniqueName('app'),
        topicPrefix: prefix,
        sessionExpiryS: 60,
      }),
  },
  {
    name: 'nats',
    callbackUrl: (prefix) =>
      `${SHARED_NATS}?subject_prefix=${prefix}&stream=${prefix.toUpperCase()}&max_age_s=600`,
    source: (prefix, receiver) => {
      cleanups.push(async () => {
        const nc = await connect({ servers: '127.0.0.1:4222' });
        await (await jetstreamManager(nc)).streams.delete(prefix.toUpperCase()).catch(() => undefined);
        await nc.close();
      });
      return new JetStreamEventSource({
        url: SHARED_NATS,
        receiver,
        durable: 'app',
        subjectPrefix: prefix,
        stream: { name: prefix.toUpperCase(), maxAgeS: 600 },
      });
    },
  },
];

describe.each(SCHEMES)('the sleeper with RVC_CALLBACK_URL=$name://…', (scheme) => {
  it('delivers every event of a run signed, verified and in order', async () => {
    servers.assertBuilt();
    const prefix = uniqueName('rmk');
    const delivered: TaskEvent[] = [];
    const servers_: string[] = [];
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: (event, context) => {
        delivered.push(event);
        servers_.push(context.server);
      },
    });
    const source = scheme.source(prefix, receiver);
    await source.start();
    cleanups.push(() => source.close());

    const { client } = await servers.connectStdio({ RVC_CALLBACK_URL: scheme.callbackUrl(prefix) });
    servers.track(client);
    const info = await callJson(client, 'sleep_task', {
      duration_s: 2.5,
      triggers: [{ type: 'progress_above', percent: 50 }],
    });
    await until(() => delivered.some((e) => e.type === 'task_done'), 'task_done', 60_000);
    expect(delivered.map((e) => [e.task_id, e.seq, e.type])).toEqual([
      [info.task_id, 1, 'progress'],
      [info.task_id, 2, 'progress'],
      [info.task_id, 3, 'trigger_fired'],
      [info.task_id, 4, 'progress'],
      [info.task_id, 5, 'task_done'],
    ]);
    expect(servers_.every((s) => s === 'sleeper')).toBe(true);
    expect(receiver.stats()).toMatchObject({ delivered: 5, gaps: 0, byStatus: { 200: 5 } });
  }, 90_000);

  it('fails fast at start-up with the fix when the broker is unreachable', async () => {
    servers.assertBuilt();
    const port = await freePort();
    const url = scheme.callbackUrl(uniqueName('rmk')).replace(/:(1883|4222)/, `:${port}`);
    const { child, stderr } = servers.spawn({
      RVC_CALLBACK_URL: url,
      MCP_TRANSPORT: 'streamable-http',
      MCP_PORT: '0',
    });
    expect(await exitOf(child)).toBe(1);
    expect(stderr()).toMatch(
      /cannot start SleeperServer: CONFIG_INVALID: RVC_CALLBACK_URL: cannot connect to/,
    );
    expect(stderr()).toMatch(
      scheme.name === 'mqtt' ? /start the broker/ : /start nats-server with JetStream/,
    );
  }, 60_000);
});
