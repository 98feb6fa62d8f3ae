import type http from 'node:http';
import { createRequire } from 'node:module';
import type { HttpsOptions } from 'got';
import { type Clock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { type Logger } from '../logging/logger.js';
import { redactUrl } from '../rules/url.rules.js';
import { type StandardWebhooksOptions } from '../signing/standard-webhooks.js';

/**
 * Limits on single phases of one POST, in ms, passed to got's `timeout` option: `lookup` (DNS),
 * `connect` (TCP), `secureConnect` (TLS handshake), `send` (writing the request), `response` (from
 * the request written to the status line), `socket` (a socket idle that long). Each phase not set
 * is bounded by the whole-request `timeoutMs` only.
 */
export type HttpPhaseTimeouts = Partial<
  Record<'lookup' | 'connect' | 'secureConnect' | 'send' | 'response' | 'socket', number>
>;

/** TLS options of got (`certificate`, `key`, `certificateAuthority`, `passphrase`, `pfx`, ...). */
export type HttpEventTlsOptions = HttpsOptions;

/** Options of {@link HttpEventTransport}. */
export interface HttpEventTransportOptions {
  /** The app's events endpoint, e.g. `http://127.0.0.1:8000/api/agent/events`. */
  url: string;
  /** The HMAC secret shared with the app (`RVC_EVENT_SECRET`). */
  secret: string;
  /** Sent as `X-RVC-Server`. */
  serverName: string;
  /** Source of `X-RVC-Timestamp` (default the system clock). */
  clock?: Clock;
  /**
   * The whole exchange of one POST in ms, connection to the last byte of the (capped) answer:
   * got's `timeout.request` (default 10 000).
   */
  timeoutMs?: number;
  /** Tighter limits on single phases (got's `timeout.connect`, `timeout.response`, ...). */
  timeouts?: HttpPhaseTimeouts;
  logger?: Logger;
  /** Also sign with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
  standardWebhooks?: StandardWebhooksOptions;
  /**
   * Client certificate (mTLS) and private CA as got's `https` option, for an `https://` URL:
   * `{ certificate, key, certificateAuthority }` (PEM strings or buffers). The transport's own
   * keep-alive agent keeps one pool per set of TLS options.
   */
  https?: HttpEventTlsOptions;
  /**
   * The agent every POST goes through, for what the default keep-alive agent cannot do: a proxy
   * (an agent from a proxy library), or TLS settings kept on the agent
   * (`new https.Agent({ keepAlive: true, cert, key, ca })`). It must speak the URL's protocol. The
   * caller owns it: {@link HttpEventTransport.close} leaves it open. Default: a keep-alive agent
   * of the transport's own.
   */
  agent?: http.Agent;
  /**
   * Most POSTs open at once (default 8): the transport's own agent keeps that many sockets, and
   * a send over the bound waits for a slot (a slot is held until the answer is read). The
   * poster's `maxInFlight` defaults to it.
   */
  maxInFlight?: number;
}

/** The default bound of {@link HttpEventTransportOptions.maxInFlight}. */
export const HTTP_MAX_IN_FLIGHT = 8;

/** `maxInFlight`, checked. @throws ConfigError naming the field */
export function maxInFlightOf(options: HttpEventTransportOptions): number {
  const value = options.maxInFlight ?? HTTP_MAX_IN_FLIGHT;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(
      'maxInFlight',
      `must be an integer >= 1 (default ${HTTP_MAX_IN_FLIGHT}); got ${String(options.maxInFlight)}`,
    );
  }
  return value;
}

const PHASES = ['lookup', 'connect', 'secureConnect', 'send', 'response', 'socket'] as const;

/** The validated limits of a transport: `request` is the whole exchange. */
export interface HttpTimeouts extends HttpPhaseTimeouts {
  request: number;
}

/** `timeoutMs` and `timeouts`, checked. @throws ConfigError naming the field */
export function timeoutsOf(options: HttpEventTransportOptions): HttpTimeouts {
  const request = options.timeoutMs ?? 10_000;
  checkMs('timeoutMs', request);
  const timeouts: HttpTimeouts = { request };
  const phases = options.timeouts ?? {};
  if (typeof phases !== 'object' || phases === null) {
    throw new ConfigError('timeouts', `must be an object such as { connect: 2000 }; got ${String(phases)}`);
  }
  for (const [name, value] of Object.entries(phases)) {
    if (!(PHASES as readonly string[]).includes(name)) {
      throw new ConfigError(`timeouts.${name}`, `is not a phase; use one of ${PHASES.join(', ')}`);
    }
    if (value === undefined) continue;
    checkMs(`timeouts.${name}`, value);
    timeouts[name as (typeof PHASES)[number]] = value as number;
  }
  return timeouts;
}

function checkMs(field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      field,
      `must be a positive number of milliseconds, e.g. 10000; got ${String(value)}`,
    );
  }
}

const requireBuiltin = createRequire(import.meta.url);

/**
 * node:http or node:https, loaded by the first transport that needs it: a server without a
 * callback URL (stdio, a broker transport) never loads them, or tls (~10 ms of a cold start).
 */
export function httpModule(secure: boolean): Pick<typeof http, 'Agent'> {
  return requireBuiltin(secure ? 'node:https' : 'node:http') as typeof http;
}

/**
 * A node agent of the other protocol would fail every POST at send time: say so at construction.
 * Agents of other classes (proxy agents) may pick their protocol per request, so only the
 * built-in classes are checked.
 */
export function checkAgentProtocol(agent: unknown, protocol: string): void {
  if (typeof (agent as { addRequest?: unknown } | null)?.addRequest !== 'function') {
    throw new ConfigError('agent', 'must be an http.Agent or https.Agent (or an agent built on them)');
  }
  const { constructor } = agent as object;
  const builtin = constructor === httpModule(false).Agent || constructor === httpModule(true).Agent;
  const proto = (agent as { protocol?: unknown }).protocol;
  if (builtin && typeof proto === 'string' && proto !== protocol) {
    const wanted = protocol === 'https:' ? 'an https.Agent' : 'an http.Agent';
    throw new ConfigError('agent', `is an agent for ${proto} but the url is ${protocol}: pass ${wanted}`);
  }
}

/** TLS options for a plain `http://` URL would be ignored silently: refuse them. */
export function checkTlsOptions(tls: unknown, protocol: string): void {
  if (tls === undefined) return;
  if (typeof tls !== 'object' || tls === null) {
    throw new ConfigError('https', 'must be an object of got https options such as { certificateAuthority }');
  }
  if (protocol !== 'https:') {
    throw new ConfigError('https', `applies to https:// URLs only; the url is ${protocol}//`);
  }
}

/**
 * What every signing event transport (HTTP, MQTT, JetStream) needs: the shared secret and the
 * server name. @throws ConfigError naming the field
 */
export function checkSigningOptions(options: { secret?: unknown; serverName?: unknown }): void {
  if (typeof options.secret !== 'string' || options.secret.length === 0) {
    throw new ConfigError('secret', 'must be a non-empty string: the HMAC secret shared with the app');
  }
  if (typeof options.serverName !== 'string' || options.serverName.trim() === '') {
    throw new ConfigError(
      'serverName',
      'must be a non-empty string such as "navigation" (sent as X-RVC-Server)',
    );
  }
}

/**
 * Parses an http(s) callback URL. @throws ConfigError naming `variable`, with an example.
 */
export function parseCallbackUrl(value: unknown, variable: string): URL {
  const example = 'e.g. http://127.0.0.1:8000/api/agent/events';
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(variable, `must be an http(s) URL of the app's events endpoint, ${example}`);
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(
      variable,
      `is not a valid URL (${JSON.stringify(redactUrl(value))}); use an http(s) URL, ${example}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      variable,
      `must use http or https, not ${url.protocol.replace(':', '')}; ${example}`,
    );
  }
  return url;
}

/** The URL without credentials, query or fragment, safe to log. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
