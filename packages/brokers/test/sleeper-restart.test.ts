import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { JetStreamEventSource, MqttEventSource } from '@robot-mcp-kit/brokers';
import { callJson, ChildServers } from '../../../test/support/child-server.js';
import { PrivateBroker, SECRET, until } from './broker-test.helpers.js';

// The built sleeper as a child process, publishing to a private broker that is stopped and
// started again while the task runs (`npm run build` first).
const main = fileURLToPath(new URL('../../../examples/sleeper/dist/main.js', import.meta.url));
const servers = new ChildServers(main, { RVC_EVENT_SECRET: SECRET, LOG_LEVEL: 'error' });
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  await servers.cleanup();
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

describe.each(['mosquitto', 'nats'] as const)('a sleeper run across a %s restart', (kind) => {
  it('delivers every event once, signed and in order', async () => {
    servers.assertBuilt();
    const broker = await PrivateBroker.start(kind);
    cleanups.push(() => broker.dispose());
    const delivered: TaskEvent[] = [];
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: (e) => void delivered.push(e),
    });
    const source =
      kind === 'mosquitto'
        ? new MqttEventSource({ url: broker.url, receiver, clientId: 'sleeper-app' })
        : new JetStreamEventSource({ url: broker.url, receiver, durable: 'sleeper-app', ackWaitMs: 5_000 });
    await source.start();
    cleanups.push(() => source.close());

    const { client } = await servers.connectStdio({ RVC_CALLBACK_URL: broker.url });
    servers.track(client);
    const info = await callJson(client, 'sleep_task', { duration_s: 6 });
    await until(() => delivered.length >= 1, 'the first progress event', 30_000);
    await broker.restart();
    await until(() => delivered.some((e) => e.type === 'task_done'), 'task_done after the restart', 90_000);

    expect(delivered.map((e) => [e.task_id, e.seq, e.type])).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((seq) => [info.task_id, seq, 'progress']),
      [info.task_id, 7, 'task_done'],
    ]);
    expect(receiver.stats()).toMatchObject({ delivered: 7, gaps: 0 });
  }, 150_000);
});
