import { silentLogger } from '@robot-mcp-kit/core';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import mqtt from 'mqtt';
import { checkPrefix, describeBrokerUrl } from '../shared/broker-options.js';
import { connectUrl, mqttUrlOptions, natsUrlOptions, parseBrokerUrl } from '../shared/broker-url.js';
import { errorText } from '../shared/signed-message.js';
import {
  MEMORY_STREAM_WARNING,
  resolveStream,
  streamWithUrl,
} from '../transports/jetstream-stream.config.js';
import { waitForConnect } from '../transports/mqtt-event.transport.js';
import { connectNats } from '../transports/nats-connection.js';

/** What {@link probeBroker} found: one line for people, and a warning when a setting is risky. */
export type BrokerProbe =
  | { readonly ok: true; readonly message: string; readonly warning?: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Connects to the broker of an `mqtt://`, `mqtts://` or `nats://` callback URL as the transport
 * would (same URL parser and options), then disconnects; publishes nothing and creates nothing.
 * For NATS it also checks JetStream and the stream (missing, or kept in memory: a warning).
 * Never throws: a bad URL or a failure is `ok: false` with the reason (credentials redacted).
 */
export async function probeBroker(rawUrl: string, timeoutMs: number): Promise<BrokerProbe> {
  try {
    const example = 'e.g. mqtt://127.0.0.1:1883 or nats://127.0.0.1:4222';
    const url = parseBrokerUrl(rawUrl, 'RVC_CALLBACK_URL', ['mqtt:', 'mqtts:', 'nats:'], example);
    return url.protocol === 'nats:' ? await probeNats(url, timeoutMs) : await probeMqtt(url, timeoutMs);
  } catch (err) {
    return { ok: false, reason: errorText(err) };
  }
}

async function probeMqtt(url: URL, timeoutMs: number): Promise<BrokerProbe> {
  const options = mqttUrlOptions(url, 'RVC_CALLBACK_URL');
  checkPrefix(options.topicPrefix ?? 'rmk', 'topic_prefix', '/');
  const client = mqtt.connect(connectUrl(url), {
    protocolVersion: 5,
    clientId: `rmk-doctor-${Math.random().toString(16).slice(2, 10)}`,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: timeoutMs,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
  });
  client.on('error', () => undefined);
  try {
    await waitForConnect(client, timeoutMs);
  } catch (err) {
    return { ok: false, reason: `MQTT broker ${describeBrokerUrl(url)}: ${errorText(err)}` };
  } finally {
    await client.endAsync(true).catch(() => undefined);
  }
  return { ok: true, message: `MQTT broker ${describeBrokerUrl(url)} accepted a connection` };
}

async function probeNats(url: URL, timeoutMs: number): Promise<BrokerProbe> {
  const options = natsUrlOptions(url, 'RVC_CALLBACK_URL');
  const prefix = checkPrefix(options.subjectPrefix ?? 'rmk', 'subject_prefix', '.');
  const stream = resolveStream(streamWithUrl({}, options), prefix);
  const nc = await connectNats(url, {}, timeoutMs, silentLogger);
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    const where = `NATS ${describeBrokerUrl(url)}`;
    const info = await jsm.streams.info(stream.name).catch((err: unknown) => err as Error);
    if (info instanceof Error) {
      if (!/stream not found/i.test(info.message))
        return { ok: false, reason: `${where}: ${errorText(info)}` };
      return {
        ok: true,
        message: `${where} has JetStream; stream ${stream.name} does not exist yet (the server creates it, file-backed)`,
      };
    }
    const message = `${where} has JetStream and stream ${stream.name} (${info.config.storage} storage)`;
    return info.config.storage === StorageType.Memory
      ? { ok: true, message, warning: MEMORY_STREAM_WARNING }
      : { ok: true, message };
  } catch (err) {
    return { ok: false, reason: `NATS ${describeBrokerUrl(url)}: ${errorText(err)}` };
  } finally {
    await nc.close().catch(() => undefined);
  }
}
