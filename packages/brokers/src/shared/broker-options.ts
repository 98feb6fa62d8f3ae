import { ConfigError } from '@robot-mcp-kit/core';
import { urlOrigin } from '@robot-mcp-kit/core/rules';
import { checkSigningOptions } from '@robot-mcp-kit/core/transport';

/** TLS material for `mqtts://` and TLS NATS servers (PEM text). */
export interface BrokerTlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  /** Default true; false only for a test broker with a self-signed certificate. */
  rejectUnauthorized?: boolean;
}

/** Options every broker transport shares. */
export interface BrokerCommonOptions {
  /** The HMAC secret shared with the app (`RVC_EVENT_SECRET`). */
  secret: string;
  /** Sent as `X-RVC-Server`; also a topic level / subject token. */
  serverName: string;
  /** Per-publish acknowledgement timeout in ms (default 10 000); a timeout is a failed attempt. */
  timeoutMs?: number;
  /** First connection deadline in ms (default 5 000); `open()` fails with the fix after it. */
  connectTimeoutMs?: number;
  username?: string;
  password?: string;
  tls?: BrokerTlsOptions;
}

/** @throws ConfigError unless `value` is a positive finite number. */
export function positiveMs(value: unknown, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new ConfigError(
      name,
      `must be a positive number of milliseconds, e.g. ${fallback}; got ${String(ms)}`,
    );
  }
  return ms;
}

/** @throws ConfigError unless secret and server name are non-empty strings (core's rule). */
export function checkCommon(options: BrokerCommonOptions): void {
  checkSigningOptions(options);
}

/** @throws ConfigError unless `prefix` is a non-empty name made of safe characters. */
export function checkPrefix(prefix: string, name: string, separator: '/' | '.'): string {
  const pattern =
    separator === '/' ? /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/ : /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
  if (typeof prefix !== 'string' || !pattern.test(prefix)) {
    throw new ConfigError(
      name,
      `must be letters, digits, "-" or "_" in levels separated by "${separator}" (e.g. "rmk"); got ${JSON.stringify(prefix)}`,
    );
  }
  return prefix;
}

/** The URL without credentials, query or fragment, safe to log. */
export function describeBrokerUrl(url: URL): string {
  return urlOrigin(url);
}
