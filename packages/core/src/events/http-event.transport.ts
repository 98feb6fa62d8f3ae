import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { type Duplex } from 'node:stream';
import type { ExtendOptions, Got } from 'got';
import { type Clock, systemClock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { signatureHeader } from '../signing/signing.js';
import { type StandardWebhooksOptions, StandardWebhooksSigner } from '../signing/standard-webhooks.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';
import { redactUrlCredentials } from './url-redaction.js';

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
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  logger?: Logger;
  /** Also sign with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
  standardWebhooks?: StandardWebhooksOptions;
}

/**
 * The HTTP adapter of the {@link EventTransport} port (spec §3.1): one signed POST per attempt
 * over a single keep-alive agent. It never retries by itself (the poster owns the schedule) and
 * never throws: every failure comes back as `{ ok: false }`.
 */
export class HttpEventTransport implements EventTransport {
  readonly description: string;
  private readonly url: URL;
  private readonly secret: string;
  private readonly serverName: string;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly agent: http.Agent;
  /**
   * got with every per-transport option merged once (profiled: normalizing them cost ~10 µs a
   * POST). got is loaded on the first send, so a server that never posts never loads it.
   */
  private client: Got | undefined;
  private clientLoading: Promise<Got> | undefined;
  private readonly clientOptions: ExtendOptions;
  private readonly webhooks: StandardWebhooksSigner | undefined;
  private closed = false;

  constructor(options: HttpEventTransportOptions) {
    this.url = parseCallbackUrl(options.url, 'url');
    checkSigningOptions(options);
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigError(
        'timeoutMs',
        `must be a positive number of milliseconds, e.g. 10000; got ${timeoutMs}`,
      );
    }
    this.secret = options.secret;
    this.webhooks = options.standardWebhooks
      ? new StandardWebhooksSigner(options.standardWebhooks)
      : undefined;
    this.serverName = options.serverName;
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = timeoutMs;
    this.description = describeUrl(this.url);
    this.logger = (options.logger ?? silentLogger).child({ target: this.description });
    let agents: { http?: http.Agent; https?: https.Agent };
    if (this.url.protocol === 'https:') {
      const agent = new https.Agent({ keepAlive: true });
      this.agent = agent;
      agents = { https: agent };
    } else {
      this.agent = new http.Agent({ keepAlive: true });
      agents = { http: this.agent };
    }
    // Everything but the URL, the body and the two per-attempt headers is fixed here, once.
    this.clientOptions = {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-RVC-Server': this.serverName },
      agent: agents,
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      timeout: { request: this.timeoutMs },
      // The response body is discarded: no Accept-Encoding, nothing to decompress.
      decompress: false,
    };
  }

  /** got, extended once with this transport's options, loaded on first use. */
  private loadClient(): Promise<Got> {
    this.clientLoading ??= import('got').then(({ default: got }) => {
      this.client = got.extend(this.clientOptions);
      return this.client;
    });
    return this.clientLoading;
  }

  /**
   * Sends one signed POST. Resolves `{ ok: true }` on any 2xx as soon as the status line and
   * headers arrive; never rejects. The response body is read in the background up to
   * `MAX_RESPONSE_BODY_BYTES` and discarded (a longer one closes the connection), so a huge
   * or endless answer holds neither memory nor a send slot, and the request timeout ends it.
   */
  send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: 'transport closed' });
    const client = this.client;
    if (!client) {
      return this.loadClient().then(
        () => this.send(delivery),
        (err: unknown) => ({ ok: false, error: `cannot load got: ${this.describeError(err)}` }),
      );
    }
    const body = Buffer.from(delivery.body, 'utf8');
    const timestamp = Math.floor(this.clock.now() / 1000);
    const request = client.stream(this.url, {
      body,
      headers: {
        'X-RVC-Timestamp': String(timestamp),
        'X-RVC-Signature': signatureHeader(this.secret, timestamp, body),
        ...this.webhooks?.headers(delivery.event.event_id, timestamp, body),
      },
    });
    return new Promise<DeliveryOutcome>((resolve) => {
      let settled = false;
      request.once('response', (response: IncomingMessage) => {
        settled = true;
        resolve(this.outcomeOf(response, delivery));
        discardBody(request);
      });
      request.on('error', (err: unknown) => {
        if (settled) return; // the body failed after the answer: nothing to report
        settled = true;
        const error = this.describeError(err);
        this.logger.debug('event POST failed', {
          event_id: delivery.event.event_id,
          attempt: delivery.attempt,
          error,
        });
        resolve({ ok: false, error });
      });
    });
  }

  private outcomeOf(response: IncomingMessage, delivery: EventDelivery): DeliveryOutcome {
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return { ok: true, status };
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.clock.now());
    this.logger.debug('event rejected', {
      event_id: delivery.event.event_id,
      attempt: delivery.attempt,
      status,
      retry_after_ms: retryAfterMs,
    });
    return retryAfterMs === undefined
      ? { ok: false, status, error: `HTTP ${status}` }
      : { ok: false, status, error: `HTTP ${status}`, retryAfterMs };
  }

  /** Destroys the keep-alive agent (open sockets included). Later sends fail with `transport closed`. */
  async close(): Promise<void> {
    this.closed = true;
    this.agent.destroy();
  }

  private describeError(err: unknown): string {
    const e = err as { name?: string; code?: string; message?: string };
    if (e?.name === 'TimeoutError') return `timeout after ${this.timeoutMs} ms`;
    if (typeof e?.code === 'string' && e.code !== 'ERR_GOT_REQUEST_ERROR') return e.code;
    return typeof e?.message === 'string' ? e.message : String(err);
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

/** The most response-body bytes read (and discarded) per attempt; a longer body closes the connection. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

/** Reads and drops the rest of a response, up to the cap; past it the request is destroyed. */
function discardBody(request: Duplex): void {
  let read = 0;
  request.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > MAX_RESPONSE_BODY_BYTES) request.destroy();
  });
}

/**
 * Parses a `Retry-After` header — delay seconds (`120`) or an HTTP date — into milliseconds from
 * `nowMs`. Returns `undefined` when absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
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
      `is not a valid URL (${JSON.stringify(redactUrlCredentials(value))}); use an http(s) URL, ${example}`,
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
function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
