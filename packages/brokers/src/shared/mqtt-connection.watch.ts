import { type Logger } from '@robot-mcp-kit/core';
import { type IDisconnectPacket, type MqttClient } from 'mqtt';

/** MQTT 5 DISCONNECT reason code 0x8E: another client connected with this client id. */
export const SESSION_TAKEN_OVER = 0x8e;
/** Connections the broker closes this soon after accepting them count as taken over. */
const QUICK_CLOSE_MS = 10_000;
/** After this many such closes in a row (no error, reconnect accepted at once), say so. */
const QUICK_CLOSES = 3;

/**
 * Watches for a session takeover: another client connecting with the same client id makes the
 * broker drop this one, which reconnects and drops the other, forever. Brokers that say so send
 * DISCONNECT with reason 0x8E; others (Mosquitto 2.0) just close the socket, so three
 * connections in a row closed by the broker within 10 s of being accepted, without an error,
 * count too. Logged once per client, as an error with the cause and `fix`. Every lost connection
 * is logged as a warning naming its cause.
 */
export function watchMqttConnection(client: MqttClient, clientId: string, logger: Logger, fix: string): void {
  let logged = false;
  let cause: string | undefined;
  let connectedAt: number | undefined;
  let errored = false;
  let quickCloses = 0;
  const report = (how: string): void => {
    if (logged) return;
    logged = true;
    logger.error(
      `MQTT session taken over: another client connects with the same client id "${clientId}" (${how}); ` +
        `the two drop each other forever. ${fix}`,
      { client_id: clientId },
    );
  };
  client.on('disconnect', (packet: IDisconnectPacket) => {
    const code = packet.reasonCode ?? 0;
    if (code !== SESSION_TAKEN_OVER) {
      cause = `broker DISCONNECT 0x${code.toString(16)}`;
      return;
    }
    cause = 'session taken over (0x8E)';
    report('the broker sent DISCONNECT 0x8E');
  });
  client.on('connect', () => {
    connectedAt = Date.now();
    errored = false;
    cause = undefined;
  });
  client.on('error', () => {
    errored = true;
  });
  client.on('close', () => {
    if (connectedAt === undefined) return;
    const lasted = Date.now() - connectedAt;
    connectedAt = undefined;
    quickCloses = !errored && lasted < QUICK_CLOSE_MS ? quickCloses + 1 : 0;
    cause ??= errored ? 'connection error' : 'closed by the broker';
    if (quickCloses >= QUICK_CLOSES) {
      cause = 'closed by the broker right after connecting: session taken over?';
      report(`the broker closed ${quickCloses} connections in a row right after accepting them`);
    }
    logger.warn('MQTT connection lost; reconnecting', { cause });
  });
}
