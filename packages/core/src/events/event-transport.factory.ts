import { type Clock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { parseStandardWebhookSecrets } from '../signing/standard-webhooks.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';
import { HttpEventTransport, parseCallbackUrl } from './http-event.transport.js';
import { NoopEventTransport } from './noop-event.transport.js';
import { POSTER_DEFAULTS } from './poster-options.js';
import { redactUrl, urlOrigin } from '../rules/url.rules.js';
import { EVENT_SECRET_FIX, weakSecretAllowed, weakSecretReason } from '../rules/secret.rules.js';

/** Options of {@link createEventTransportFromEnv}. */
export interface EventTransportEnvOptions {
  /** Where the variables come from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
  /** Per-request timeout; wins over `RVC_EVENT_TIMEOUT_MS` (default 10 000). */
  timeoutMs?: number;
  /** The poster's retry cap in ms, used as the broker message expiry (default 600 000). */
  retryCapMs?: number;
}

/** The package that holds the MQTT and NATS JetStream transports. */
export const BROKERS_PACKAGE = '@robot-mcp-kit/brokers';

/** URL schemes served by {@link BROKERS_PACKAGE}. */
export const BROKER_SCHEMES: readonly string[] = ['mqtt:', 'mqtts:', 'nats:'];

/** What {@link BROKERS_PACKAGE} is asked to build (its `createBrokerEventTransport`). */
export interface BrokerTransportRequest {
  url: string;
  secret: string;
  serverName: string;
  timeoutMs?: number;
  messageExpiryS: number;
  clock?: Clock;
  logger: Logger;
}

interface BrokersModule {
  createBrokerEventTransport(request: BrokerTransportRequest): EventTransport;
}

/** Loads the brokers package (a seam for tests). */
export type BrokersLoader = () => Promise<unknown>;

const loadBrokers: BrokersLoader = () => import(BROKERS_PACKAGE);

/**
 * Builds the event transport from the environment (spec §3.4):
 * - `RVC_CALLBACK_URL` unset or empty: a `NoopEventTransport` (events logged at debug);
 * - an `http(s)://` URL: an {@link HttpEventTransport} signing with `RVC_EVENT_SECRET`, with the
 *   optional `RVC_EVENT_TIMEOUT_MS` request timeout and, when `RVC_STANDARD_WEBHOOK_SECRETS` is
 *   set, Standard Webhooks headers beside the `X-RVC-*` ones;
 * - an `mqtt://`, `mqtts://` or `nats://` URL: the matching transport of `@robot-mcp-kit/brokers`,
 *   loaded on `open()` (the server awaits it at start-up).
 * @throws ConfigError when the URL is malformed, the secret is missing or shorter than 32 bytes
 *   (unless `RMK_ALLOW_WEAK_SECRET=1`, then a warning), or the timeout is not a
 *   positive integer — at start-up, never later.
 */
export function createEventTransportFromEnv(
  serverName: string,
  options: EventTransportEnvOptions = {},
  loader: BrokersLoader = loadBrokers,
): EventTransport {
  const env = options.env ?? process.env;
  const logger = (options.logger ?? silentLogger).child({ server: serverName });
  const rawUrl = env.RVC_CALLBACK_URL?.trim() ?? '';
  if (rawUrl === '') {
    logger.debug('RVC_CALLBACK_URL is unset: events are not pushed, only logged at debug');
    return new NoopEventTransport({ logger });
  }
  const brokerUrl = brokerScheme(rawUrl) ? parseBrokerUrl(rawUrl) : undefined;
  const url = brokerUrl ?? parseCallbackUrl(rawUrl, 'RVC_CALLBACK_URL');
  const secret = requireSecret(env, serverName, logger);
  const timeoutMs = options.timeoutMs ?? parseTimeout(env.RVC_EVENT_TIMEOUT_MS);
  if (brokerUrl) {
    const request: BrokerTransportRequest = {
      url: brokerUrl.href,
      secret,
      serverName,
      timeoutMs,
      messageExpiryS: Math.ceil((options.retryCapMs ?? POSTER_DEFAULTS.maxRetryMs) / 1000),
      clock: options.clock,
      logger,
    };
    return new BrokerEventTransportLoader(request, loader);
  }
  const webhookSecrets = env.RVC_STANDARD_WEBHOOK_SECRETS?.trim();
  return new HttpEventTransport({
    url: url.href,
    secret,
    serverName,
    clock: options.clock,
    timeoutMs,
    logger,
    ...(webhookSecrets
      ? {
          standardWebhooks: {
            secrets: parseStandardWebhookSecrets(webhookSecrets, 'RVC_STANDARD_WEBHOOK_SECRETS'),
          },
        }
      : {}),
  });
}

/**
 * Stands for a broker transport until `open()` has loaded `@robot-mcp-kit/brokers` and
 * connected; `send` before that opens first (and reports a failure as `ok: false`).
 */
export class BrokerEventTransportLoader implements EventTransport {
  readonly description: string;
  private inner: EventTransport | undefined;
  private opening: Promise<EventTransport> | undefined;
  private closed = false;

  constructor(
    private readonly request: BrokerTransportRequest,
    private readonly loader: BrokersLoader = loadBrokers,
  ) {
    this.description = urlOrigin(new URL(request.url));
  }

  /** Loads the package and connects. @throws ConfigError naming the package or the broker fix. */
  async open(): Promise<void> {
    this.opening ??= this.load();
    try {
      await this.opening;
    } catch (err) {
      this.opening = undefined;
      throw err;
    }
  }

  /** The loaded transport's `maxInFlight` (none before it is loaded: the poster's default). */
  get maxInFlight(): number | undefined {
    return this.inner?.maxInFlight;
  }

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (this.closed) return { ok: false, error: 'transport closed' };
    try {
      await this.open();
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    return this.inner ? this.inner.send(delivery) : { ok: false, error: 'transport closed' };
  }

  async close(): Promise<void> {
    this.closed = true;
    const inner = this.inner;
    this.inner = undefined;
    await inner?.close?.();
  }

  private async load(): Promise<EventTransport> {
    const module = await this.importBrokers();
    const transport = module.createBrokerEventTransport(this.request);
    await transport.open?.();
    if (this.closed) {
      await transport.close?.();
      return transport;
    }
    this.inner = transport;
    return transport;
  }

  private async importBrokers(): Promise<BrokersModule> {
    let module: unknown;
    try {
      module = await this.loader();
    } catch (err) {
      const code = (err as { code?: string })?.code;
      const missing = code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (module|package)/.test(String(err));
      throw new ConfigError(
        'RVC_CALLBACK_URL',
        missing
          ? `${this.description} needs the package ${BROKERS_PACKAGE}: run \`npm install ${BROKERS_PACKAGE}\`, ` +
              'or use an http(s) callback URL'
          : `cannot load ${BROKERS_PACKAGE} (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    const factory = (module as Partial<BrokersModule>)?.createBrokerEventTransport;
    if (typeof factory !== 'function') {
      throw new ConfigError(
        'RVC_CALLBACK_URL',
        `${BROKERS_PACKAGE} does not export createBrokerEventTransport; update it`,
      );
    }
    return module as BrokersModule;
  }
}

function brokerScheme(rawUrl: string): string | undefined {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(rawUrl);
  const scheme = match?.[1] ? `${match[1].toLowerCase()}:` : undefined;
  return scheme !== undefined && BROKER_SCHEMES.includes(scheme) ? scheme : undefined;
}

function parseBrokerUrl(rawUrl: string): URL {
  const example = 'e.g. mqtt://127.0.0.1:1883 or nats://127.0.0.1:4222';
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigError(
      'RVC_CALLBACK_URL',
      `is not a valid URL (${JSON.stringify(redactUrl(rawUrl))}); ${example}`,
    );
  }
  if (url.hostname === '') throw new ConfigError('RVC_CALLBACK_URL', `needs a broker host; ${example}`);
  return url;
}

function requireSecret(env: NodeJS.ProcessEnv, serverName: string, logger: Logger): string {
  const secret = env.RVC_EVENT_SECRET;
  if (secret === undefined || secret.trim() === '') {
    throw new ConfigError(
      'RVC_EVENT_SECRET',
      `is required when RVC_CALLBACK_URL is set; set it to the secret shared with the app for server "${serverName}"` +
        ' (the same value as in its mcp.yaml entry), or unset RVC_CALLBACK_URL to run without pushing events',
    );
  }
  const weak = weakSecretReason(secret);
  if (weak !== undefined) {
    if (!weakSecretAllowed(env)) throw new ConfigError('RVC_EVENT_SECRET', `${weak}: ${EVENT_SECRET_FIX}`);
    logger.warn(
      `SECURITY WARNING: RVC_EVENT_SECRET ${weak}, allowed only because RMK_ALLOW_WEAK_SECRET=1: ` +
        "anyone who guesses it can forge this robot's events; use `openssl rand -hex 32`",
    );
  }
  return secret;
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  const ms = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new ConfigError(
      'RVC_EVENT_TIMEOUT_MS',
      `must be a positive integer number of milliseconds, e.g. 10000; got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}
