import type http from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import type https from 'node:https';
import type * as GotModule from 'got';
import type {
  ExtendOptions,
  Got,
  HandlerFunction,
  Request as GotRequest,
  Response as GotResponse,
} from 'got';
import { type Clock, systemClock } from '../clock/clock.port.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { signatureHeader } from '../signing/signing.js';
import { StandardWebhooksSigner } from '../signing/standard-webhooks.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';
import { SendSlots } from './send-slots.js';
import {
  checkAgentProtocol,
  checkSigningOptions,
  checkTlsOptions,
  describeUrl,
  type HttpEventTransportOptions,
  type HttpTimeouts,
  httpModule,
  maxInFlightOf,
  parseCallbackUrl,
  timeoutsOf,
} from './http-event.options.js';

export { checkSigningOptions, parseCallbackUrl };
export type {
  HttpEventTlsOptions,
  HttpEventTransportOptions,
  HttpPhaseTimeouts,
} from './http-event.options.js';

/**
 * The `User-Agent` of every event POST: the kit's name, so a receiver's logs say who posted
 * (instead of got's default); nothing in the contract reads it.
 */
const EVENT_POST_USER_AGENT = 'robot-mcp-kit';

/** The most response-body bytes read per attempt; a longer body closes the connection. */
export const MAX_RESPONSE_BODY_BYTES = 8 * 1024;

/** How much of a rejection's body goes into the debug log. */
const BODY_EXCERPT_CHARS = 200;

/**
 * A got handler (one function for every request, no closure per request) that gives each
 * request's options an empty `cacheOptions` (the transport uses no cache; got's default holds four
 * `undefined` keys). On node 20 (V8 11) the native request options got builds per request start
 * with a spread of `cacheOptions`: with keys in it, optimized code gives every such object a chain
 * of ~30 hidden classes of its own, ~10 KB of old-generation garbage per POST; with none, one
 * shared class. Measured on the scale scenario: the peak RSS of 10,000 overloaded tasks.
 */
const emptyCacheOptions: HandlerFunction = (options, next) => {
  options.cacheOptions = {};
  return next(options);
};

/**
 * got, imported by the first send of the first HTTP transport: a server never loads it before its
 * first event (cold start: ~50 ms of module loading stays off spawn → first tools/list).
 */
let gotModule: Promise<typeof GotModule> | undefined;
function loadGot(): Promise<typeof GotModule> {
  gotModule ??= import('got');
  return gotModule;
}

/**
 * The HTTP adapter of the {@link EventTransport} port (spec §3.1): one signed POST per attempt
 * through one got instance of its own (`got.extend`) over a keep-alive agent. got's retry is off
 * (the poster owns the contract's schedule), redirects are not followed, and the transport never
 * throws: every failure comes back as `{ ok: false }`.
 *
 * At most `maxInFlight` POSTs (default 8) are open at once, each on a socket of its own (the
 * transport's agent keeps that many); a send over the bound waits as one small resolver, not as a
 * got request queued in the agent. A slot is held until the answer has been read (or dropped), so
 * a slow receiver never makes the transport open more requests than its sockets carry.
 */
export class HttpEventTransport implements EventTransport {
  readonly description: string;
  private readonly url: string;
  private readonly secret: string;
  private readonly serverName: string;
  private readonly clock: Clock;
  private readonly timeouts: HttpTimeouts;
  private readonly logger: Logger;
  private readonly agent: http.Agent;
  /** got's options of this transport's instance (`got.extend`). */
  private readonly instanceOptions: ExtendOptions;
  /** The got instance, made by the first send (got is loaded then, not at start-up). */
  private client: Promise<Got> | undefined;
  private readonly webhooks: StandardWebhooksSigner | undefined;
  /** False when the caller passed the agent: close() leaves it to them. */
  private readonly ownsAgent: boolean;
  /** The poster's send limit when it sets none of its own (see {@link EventTransport.maxInFlight}). */
  readonly maxInFlight: number;
  private readonly slots: SendSlots;
  private closed = false;

  constructor(options: HttpEventTransportOptions) {
    const url = parseCallbackUrl(options.url, 'url');
    checkSigningOptions(options);
    this.timeouts = timeoutsOf(options);
    checkTlsOptions(options.https, url.protocol);
    this.url = url.href;
    this.secret = options.secret;
    this.webhooks = options.standardWebhooks
      ? new StandardWebhooksSigner(options.standardWebhooks)
      : undefined;
    this.serverName = options.serverName;
    this.clock = options.clock ?? systemClock;
    this.description = describeUrl(url);
    this.logger = (options.logger ?? silentLogger).child({ target: this.description });
    const secure = url.protocol === 'https:';
    this.maxInFlight = maxInFlightOf(options);
    this.slots = new SendSlots(this.maxInFlight);
    this.ownsAgent = options.agent === undefined;
    this.agent =
      options.agent ?? new (httpModule(secure).Agent)({ keepAlive: true, maxSockets: this.maxInFlight });
    checkAgentProtocol(this.agent, url.protocol);
    this.instanceOptions = {
      method: 'POST',
      agent: secure ? { https: this.agent as https.Agent } : { http: this.agent },
      ...(options.https ? { https: options.https } : {}),
      retry: { limit: 0 },
      timeout: { ...this.timeouts },
      followRedirect: false,
      throwHttpErrors: false,
      decompress: false,
      handlers: [emptyCacheOptions],
    };
  }

  /**
   * Sends one signed POST. Resolves `{ ok: true }` on any 2xx as soon as the status line and
   * headers arrive; never rejects. The response body is read in the background up to
   * `MAX_RESPONSE_BODY_BYTES` and discarded (a longer one closes the connection), so a huge
   * or endless answer holds neither memory nor a send slot, and the request timeout ends it.
   */
  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (this.closed || !(await this.slots.acquire())) return { ok: false, error: 'transport closed' };
    let request: GotRequest;
    try {
      const client = await this.gotClient();
      const body = Buffer.from(delivery.body, 'utf8');
      request = client.stream(this.url, { body, headers: this.headersOf(delivery, body) });
    } catch (err) {
      this.slots.release();
      return this.failed(delivery, err);
    }
    this.releaseWhenOver(request);
    return new Promise<DeliveryOutcome>((resolve) => {
      let settled = false;
      request.once('response', (response: GotResponse) => {
        settled = true;
        resolve(this.outcomeOf(response, delivery));
        this.readCapped(request, response, delivery);
      });
      request.on('error', (err: unknown) => {
        if (settled) return; // the body failed after the answer: nothing to report
        settled = true;
        resolve(this.failed(delivery, err));
      });
    });
  }

  /** Frees the request's slot once it is over: its answer read (or dropped), or failed. */
  private releaseWhenOver(request: GotRequest): void {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.slots.release();
    };
    request.once('end', release);
    request.once('close', release);
    request.once('error', release);
  }

  private gotClient(): Promise<Got> {
    this.client ??= loadGot().then(({ got }) => got.extend(this.instanceOptions));
    return this.client;
  }

  /** The headers of one attempt, in a fixed order; the body is signed as UTF-8. */
  private headersOf(delivery: EventDelivery, body: Buffer): Record<string, string> {
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers: Record<string, string> = {
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
    // the attempt's trace context (traceparent, tracestate) when a propagator is registered: the
    // receiver continues the trace. Headers only: the signed body is unchanged.
    propagation.inject(context.active(), headers);
    headers['content-length'] = String(body.length);
    return headers;
  }

  private outcomeOf(response: GotResponse, delivery: EventDelivery): DeliveryOutcome {
    const status = response.statusCode;
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
   * Reads and drops the answer, up to the cap (past it the request is destroyed, which closes
   * the connection); for a rejection, logs the start of the body.
   */
  private readCapped(request: GotRequest, response: GotResponse, delivery: EventDelivery): void {
    const rejected = response.statusCode < 200 || response.statusCode >= 300;
    const kept: Buffer[] = [];
    let read = 0;
    const logExcerpt = (): void => {
      if (!rejected) return;
      const excerpt = Buffer.concat(kept).toString('utf8').slice(0, BODY_EXCERPT_CHARS);
      this.logger.debug('event rejection body', {
        event_id: delivery.event.event_id,
        status: response.statusCode,
        body: excerpt.replace(/[^\x20-\x7e]/g, '?'),
      });
    };
    request.on('data', (chunk: Buffer) => {
      if (rejected && read < BODY_EXCERPT_CHARS) kept.push(chunk);
      read += chunk.length;
      if (read > MAX_RESPONSE_BODY_BYTES) request.destroy();
    });
    request.once('close', logExcerpt);
  }

  private failed(delivery: EventDelivery, err: unknown): DeliveryOutcome {
    const error = this.describeError(err);
    this.logger.debug('event POST failed', {
      event_id: delivery.event.event_id,
      attempt: delivery.attempt,
      error,
    });
    return { ok: false, error };
  }

  /**
   * Destroys the transport's own keep-alive agent (open sockets included); an agent passed as
   * `agent` stays open. Later sends fail with `transport closed`.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.slots.close();
    if (this.ownsAgent) this.agent.destroy();
  }

  /** `timeout after N ms` (the whole request), `connect timeout after N ms`, an error code, a message. */
  private describeError(err: unknown): string {
    const e = err as { name?: string; code?: string; message?: string; event?: unknown };
    if (e?.name === 'TimeoutError') {
      const phase = typeof e.event === 'string' ? e.event : 'request';
      const ms = this.timeouts[phase as keyof HttpTimeouts] ?? this.timeouts.request;
      return phase === 'request' ? `timeout after ${ms} ms` : `${phase} timeout after ${ms} ms`;
    }
    if (typeof e?.code === 'string' && e.code !== 'ERR_GOT_REQUEST_ERROR') return e.code;
    return typeof e?.message === 'string' ? e.message : String(err);
  }
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
