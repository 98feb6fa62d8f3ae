import type http from 'node:http';
import { type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { urlToHttpOptions } from 'node:url';
import { type Clock, systemClock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { signatureHeader } from '../signing/signing.js';
import { type StandardWebhooksOptions, StandardWebhooksSigner } from '../signing/standard-webhooks.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';
import { redactUrl } from '../rules/url.rules.js';

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
  /**
   * The agent every POST goes through, for what the default keep-alive agent cannot do: a client
   * certificate (mTLS) or a private CA (`new https.Agent({ keepAlive: true, cert, key, ca })`), or
   * a proxy (an agent from a proxy library). It must speak the URL's protocol. The caller owns it:
   * {@link HttpEventTransport.close} leaves it open. Default: a keep-alive agent of the transport's own.
   */
  agent?: http.Agent;
}

/**
 * The `User-Agent` of every event POST: the kit's name, so a receiver's logs say who posted. (Up
 * to 0.1 the kit posted through got and sent got's; nothing in the contract reads it.)
 */
const EVENT_POST_USER_AGENT = 'robot-mcp-kit';

/** The request timeout: reported as `timeout after N ms`. */
class RequestTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

const requireBuiltin = createRequire(import.meta.url);

/**
 * node:http or node:https, loaded by the first transport that needs it: a server without a
 * callback URL (stdio, a broker transport) never loads them, or tls (~10 ms of a cold start).
 */
function httpClientModule(secure: boolean): Pick<typeof http, 'Agent' | 'request'> {
  return requireBuiltin(secure ? 'node:https' : 'node:http') as typeof http;
}

/**
 * The HTTP adapter of the {@link EventTransport} port (spec §3.1): one signed POST per attempt
 * over a single keep-alive agent, through node:http (got, used before, built ~20 KB of hidden
 * classes per request on node 20: at 10,000 tasks that was most of the peak RSS). It never
 * retries by itself (the poster owns the schedule) and never throws: every failure comes back as
 * `{ ok: false }`.
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
  /** Where every POST goes (host, port, path and query), computed once. */
  private readonly target: http.RequestOptions;
  private readonly request: typeof http.request;
  /** `Basic ...` from the URL's credentials, as got sent it (lower-case name, after the body headers). */
  private readonly authorization: string | undefined;
  private readonly webhooks: StandardWebhooksSigner | undefined;
  /** False when the caller passed the agent: close() leaves it to them. */
  private readonly ownsAgent: boolean;
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
    const client = httpClientModule(this.url.protocol === 'https:');
    this.ownsAgent = options.agent === undefined;
    this.agent = options.agent ?? new client.Agent({ keepAlive: true });
    checkAgentProtocol(this.agent, this.url.protocol);
    this.request = client.request;
    const { auth, ...target } = urlToHttpOptions(this.url);
    this.target = { ...target, method: 'POST', agent: this.agent };
    this.authorization = auth ? `Basic ${Buffer.from(auth).toString('base64')}` : undefined;
  }

  /**
   * Sends one signed POST. Resolves `{ ok: true }` on any 2xx as soon as the status line and
   * headers arrive; never rejects. The response body is read in the background up to
   * `MAX_RESPONSE_BODY_BYTES` and discarded (a longer one closes the connection), so a huge
   * or endless answer holds neither memory nor a send slot, and the request timeout ends it.
   */
  send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: 'transport closed' });
    const body = Buffer.from(delivery.body, 'utf8');
    return new Promise<DeliveryOutcome>((resolve) => {
      let request: ClientRequest;
      try {
        request = this.request({ ...this.target, headers: this.headersOf(delivery, body) });
      } catch (err) {
        resolve({ ok: false, error: this.describeError(err) });
        return;
      }
      let settled = false;
      // The whole exchange, the discarded body included, as got's request timeout did.
      const timer = setTimeout(() => request.destroy(new RequestTimeoutError()), this.timeoutMs);
      request.once('close', () => clearTimeout(timer));
      request.once('response', (response: IncomingMessage) => {
        settled = true;
        resolve(this.outcomeOf(response, delivery));
        discardBody(request, response);
      });
      request.on('error', (err: unknown) => {
        clearTimeout(timer);
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
      request.end(body);
    });
  }

  /** The headers of one attempt (named and ordered as the kit sent them through got); the body is signed as UTF-8. */
  private headersOf(delivery: EventDelivery, body: Buffer): OutgoingHttpHeaders {
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers: OutgoingHttpHeaders = {
      'user-agent': EVENT_POST_USER_AGENT,
      'content-type': 'application/json',
      'x-rvc-server': this.serverName,
      'x-rvc-timestamp': String(timestamp),
      'x-rvc-signature': signatureHeader(this.secret, timestamp, body),
    };
    if (this.webhooks) {
      const signed = this.webhooks.headers(delivery.event.event_id, timestamp, body);
      for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
    }
    headers['content-length'] = String(body.length);
    if (this.authorization !== undefined) headers.authorization = this.authorization;
    return headers;
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

  /**
   * Destroys the transport's own keep-alive agent (open sockets included); an agent passed as
   * `agent` stays open. Later sends fail with `transport closed`.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.ownsAgent) this.agent.destroy();
  }

  private describeError(err: unknown): string {
    const e = err as { name?: string; code?: string; message?: string };
    if (e?.name === 'TimeoutError') return `timeout after ${this.timeoutMs} ms`;
    if (typeof e?.code === 'string') return e.code;
    return typeof e?.message === 'string' ? e.message : String(err);
  }
}

/**
 * A node agent of the other protocol would fail every POST at send time: say so at construction.
 * Agents of other classes (proxy agents) may pick their protocol per request, so only the
 * built-in classes are checked.
 */
function checkAgentProtocol(agent: unknown, protocol: string): void {
  if (typeof (agent as { addRequest?: unknown } | null)?.addRequest !== 'function') {
    throw new ConfigError('agent', 'must be an http.Agent or https.Agent (or an agent built on them)');
  }
  const { constructor } = agent as object;
  const builtin =
    constructor === httpClientModule(false).Agent || constructor === httpClientModule(true).Agent;
  const proto = (agent as { protocol?: unknown }).protocol;
  if (builtin && typeof proto === 'string' && proto !== protocol) {
    const wanted = protocol === 'https:' ? 'an https.Agent' : 'an http.Agent';
    throw new ConfigError('agent', `is an agent for ${proto} but the url is ${protocol}: pass ${wanted}`);
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
function discardBody(request: ClientRequest, response: IncomingMessage): void {
  let read = 0;
  response.on('error', () => undefined); // cut off (cap, timeout, close): nothing to report
  response.on('data', (chunk: Buffer) => {
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
function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
