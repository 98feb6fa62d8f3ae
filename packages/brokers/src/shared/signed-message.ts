import { context, propagation } from '@opentelemetry/api';
import { type Clock, type EventDelivery, signatureHeader } from '@robot-mcp-kit/core';
import { redactUrlCredentials } from '@robot-mcp-kit/core/rules';

/**
 * The metadata every broker message carries, under the HTTP header names of spec §3.1 (MQTT 5
 * user properties, NATS headers). `X-RVC-Signature` is exactly the HTTP header: `sha256=<hex>`
 * of `HMAC_SHA256(secret, "<timestamp>." + payload)`.
 */
export const BROKER_HEADERS = {
  server: 'X-RVC-Server',
  timestamp: 'X-RVC-Timestamp',
  signature: 'X-RVC-Signature',
  eventId: 'X-RVC-Event-Id',
  contentType: 'Content-Type',
} as const;

/** The content type of every payload: the event's exact JSON bytes. */
export const EVENT_CONTENT_TYPE = 'application/json';

/** One event ready to publish: the exact JSON bytes and the signed headers. */
export interface SignedMessage {
  readonly payload: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Signs one delivery attempt the way the HTTP transport does (a fresh timestamp per attempt), and
 * adds the active trace context's fields (`traceparent`, `tracestate`) when there are any.
 */
export function signMessage(
  delivery: EventDelivery,
  serverName: string,
  secret: string,
  clock: Clock,
): SignedMessage {
  const payload = Buffer.from(delivery.body, 'utf8');
  const timestamp = Math.floor(clock.now() / 1000);
  const headers: Record<string, string> = {
    [BROKER_HEADERS.server]: serverName,
    [BROKER_HEADERS.timestamp]: String(timestamp),
    [BROKER_HEADERS.signature]: signatureHeader(secret, timestamp, payload),
    [BROKER_HEADERS.eventId]: delivery.event.event_id,
  };
  // the attempt's trace context (traceparent, tracestate) when a propagator is registered and the
  // attempt is traced: an MQTT 5 user property or a NATS header, as over HTTP. The payload is unchanged.
  propagation.inject(context.active(), headers);
  return { payload, headers };
}

/**
 * Makes a value safe as one MQTT topic level or one NATS subject token: percent-encodes
 * everything but `A-Z a-z 0-9 - _ ~ ! ' ( )`, so `/ + # . * > $` and spaces never split or widen a name.
 */
export function nameToken(value: string): string {
  const encoded = encodeURIComponent(value).replace(/[.*]/g, (c) => (c === '.' ? '%2E' : '%2A'));
  return encoded === '' ? '_' : encoded;
}

/**
 * The topic (`/`) or subject (`.`) of an event: `<prefix><sep><server><sep><task_id><sep><type>`,
 * each of the last three made safe by {@link nameToken}.
 */
export function eventAddress(
  prefix: string,
  separator: '/' | '.',
  event: { server: string; task_id: string; type: string },
): string {
  return [prefix, nameToken(event.server), nameToken(event.task_id), nameToken(event.type)].join(separator);
}

/** A short text of an unknown error, for logs and `ok: false` outcomes; URL credentials redacted. */
export function errorText(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.message === 'string' && e.message !== '') {
    return redactUrlCredentials(typeof e.code === 'string' ? `${e.code}: ${e.message}` : e.message);
  }
  return redactUrlCredentials(String(err));
}
