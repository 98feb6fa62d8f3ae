import { type Clock } from '../clock/clock.port.js';
import { ConfigError } from '../errors/kit.error.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { type EventTransport } from './event.types.js';
import { HttpEventTransport, parseCallbackUrl } from './http-event.transport.js';
import { NoopEventTransport } from './noop-event.transport.js';

/** Options of {@link createEventTransportFromEnv}. */
export interface EventTransportEnvOptions {
  /** Where the variables come from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
  /** Per-request timeout; wins over `RVC_EVENT_TIMEOUT_MS` (default 10 000). */
  timeoutMs?: number;
}

/**
 * Builds the event transport from the environment (spec §3.4):
 * - `RVC_CALLBACK_URL` unset or empty: a {@link NoopEventTransport} (events logged at debug);
 * - `RVC_CALLBACK_URL` set: an {@link HttpEventTransport} signing with `RVC_EVENT_SECRET`, with the
 *   optional `RVC_EVENT_TIMEOUT_MS` request timeout.
 * @throws ConfigError when the URL is malformed, the secret is missing, or the timeout is not a
 *   positive integer — at start-up, never later.
 */
export function createEventTransportFromEnv(
  serverName: string,
  options: EventTransportEnvOptions = {},
): EventTransport {
  const env = options.env ?? process.env;
  const logger = (options.logger ?? silentLogger).child({ server: serverName });
  const rawUrl = env.RVC_CALLBACK_URL?.trim() ?? '';
  if (rawUrl === '') {
    logger.debug('RVC_CALLBACK_URL is unset: events are not pushed, only logged at debug');
    return new NoopEventTransport({ logger });
  }
  const url = parseCallbackUrl(rawUrl, 'RVC_CALLBACK_URL');
  const secret = env.RVC_EVENT_SECRET;
  if (secret === undefined || secret.trim() === '') {
    throw new ConfigError(
      'RVC_EVENT_SECRET',
      `is required when RVC_CALLBACK_URL is set; set it to the secret shared with the app for server "${serverName}"` +
        ' (the same value as in its mcp.yaml entry), or unset RVC_CALLBACK_URL to run without pushing events',
    );
  }
  const timeoutMs = options.timeoutMs ?? parseTimeout(env.RVC_EVENT_TIMEOUT_MS);
  return new HttpEventTransport({
    url: url.href,
    secret,
    serverName,
    clock: options.clock,
    timeoutMs,
    logger,
  });
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
