import { afterEach, describe, expect, it } from '@jest/globals';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { MqttEventSource, MqttEventTransport } from '@robot-mcp-kit/brokers';
import { makeEvent, SECRET, SHARED_MQTT, uniqueName, until } from './broker-test.helpers.js';

// Issue 28 finding 4: two robots (or two apps) with one MQTT client id disconnect each other
// forever. Each logs the takeover once, naming the cause and the fix; each reconnect line names
// the cause; client ids the kit picks are unique per process. Real Mosquitto (MQTT 5).
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

const connects = (logger: MemoryLogger): number => logger.at('info', 'MQTT broker connected').length;
const takeovers = (logger: MemoryLogger) => logger.at('error', 'MQTT session taken over');

describe('an MQTT client id used twice', () => {
  it('two transports: each logs the takeover once with the cause and the fix', async () => {
    const url = `${SHARED_MQTT}?client_id=${uniqueName('nav')}&topic_prefix=${uniqueName('rmk')}`;
    const loggers = [new MemoryLogger(), new MemoryLogger()];
    const robots = loggers.map(
      (logger) => new MqttEventTransport({ url, secret: SECRET, serverName: 'nav', logger }),
    );
    for (const robot of robots) cleanups.push(() => robot.close());
    await robots[0]!.open();
    await robots[1]!.open();
    // they take turns (each reconnects after 1 s): a takeover line each, then two more rounds
    await until(() => loggers.every((l) => takeovers(l).length > 0), 'a takeover line each', 30_000);
    const rounds = connects(loggers[0]!);
    await until(() => connects(loggers[0]!) >= rounds + 2, 'two more rounds', 30_000);
    for (const logger of loggers) {
      expect(takeovers(logger)).toHaveLength(1);
      expect(takeovers(logger)[0]!.message).toMatch(
        /another client connects with the same client id "nav\w+".*drop client_id from RVC_CALLBACK_URL/,
      );
      const reconnects = logger.at('warn', 'MQTT connection lost; reconnecting');
      expect(reconnects.length).toBeGreaterThanOrEqual(2);
      for (const line of reconnects)
        expect(line.meta.cause).toMatch(/closed by the broker|session taken over/);
    }
  }, 45_000);

  it('two sources: the takeover names the clientId and the fix', async () => {
    const clientId = uniqueName('app');
    const topicPrefix = uniqueName('rmk');
    const receiver = createEventReceiver({ secrets: { nav: SECRET }, onEvent: () => undefined });
    const loggers = [new MemoryLogger(), new MemoryLogger()];
    for (const logger of loggers) {
      const source = new MqttEventSource({
        url: SHARED_MQTT,
        receiver,
        clientId,
        topicPrefix,
        sessionExpiryS: 5,
        logger,
      });
      cleanups.push(() => source.close());
      await source.start();
    }
    await until(() => loggers.every((l) => takeovers(l).length === 1), 'a takeover line each', 30_000);
    expect(takeovers(loggers[0]!)[0]!.message).toContain(`"${clientId}"`);
    expect(takeovers(loggers[0]!)[0]!.message).toContain('Give each app instance its own clientId');
  }, 45_000);

  it('client ids the kit picks are unique per process: two robots without client_id both deliver', async () => {
    const url = `${SHARED_MQTT}?topic_prefix=${uniqueName('rmk')}`;
    const loggers = [new MemoryLogger(), new MemoryLogger()];
    const robots = loggers.map(
      (logger) => new MqttEventTransport({ url, secret: SECRET, serverName: 'nav', logger }),
    );
    for (const robot of robots) cleanups.push(() => robot.close());
    for (const robot of robots) await robot.open();
    for (const [i, robot] of robots.entries()) {
      const event = makeEvent('nav', `nav-00000${i}`, 1);
      await expect(robot.send({ event, body: JSON.stringify(event.toJSON()), attempt: 1 })).resolves.toEqual({
        ok: true,
      });
    }
    for (const logger of loggers) {
      expect(takeovers(logger)).toHaveLength(0);
      expect(connects(logger)).toBe(1);
    }
  });
});
