import { ConfigError } from '@robot-mcp-kit/core';
import { redactUrl } from '@robot-mcp-kit/core/rules';
import { checkPrefix } from './broker-options.js';

/** Query parameters an `mqtt://` / `mqtts://` URL may carry (transports and sources alike). */
export const MQTT_URL_PARAMS = ['topic_prefix', 'client_id'] as const;
/** Query parameters a `nats://` / `tls://` URL may carry (transports and sources alike). */
export const NATS_URL_PARAMS = ['subject_prefix', 'stream', 'retention', 'max_age_s'] as const;

/** The options an MQTT URL sets. */
export interface MqttUrlOptions {
  topicPrefix?: string;
  clientId?: string;
}

/** The options a NATS URL sets. */
export interface NatsUrlOptions {
  subjectPrefix?: string;
  stream?: string;
  retention?: 'limits' | 'interest' | 'workqueue';
  maxAgeS?: number;
}

/**
 * Parses a broker URL of one of `protocols`. @throws ConfigError naming `variable` (the URL shown
 * with its credentials redacted) unless it is one with a host.
 */
export function parseBrokerUrl(
  value: unknown,
  variable: string,
  protocols: readonly string[],
  example: string,
): URL {
  let url: URL;
  try {
    url = new URL(String(value).trim());
  } catch {
    throw new ConfigError(
      variable,
      `is not a valid URL (${JSON.stringify(redactUrl(String(value)))}); ${example}`,
    );
  }
  if (!protocols.includes(url.protocol)) {
    const names = protocols.map((p) => p.replace(':', ''));
    const listed = `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
    throw new ConfigError(variable, `must use ${listed}, not ${url.protocol.replace(':', '')}; ${example}`);
  }
  if (url.hostname === '') throw new ConfigError(variable, `needs a host; ${example}`);
  return url;
}

/** The options in an MQTT URL's query. @throws ConfigError naming `variable` for an unknown one. */
export function mqttUrlOptions(url: URL, variable: string): MqttUrlOptions {
  const params = queryParams(url, MQTT_URL_PARAMS, variable);
  return {
    ...(params.topic_prefix !== undefined ? { topicPrefix: params.topic_prefix } : {}),
    ...(params.client_id !== undefined ? { clientId: params.client_id } : {}),
  };
}

/** The options in a NATS URL's query. @throws ConfigError naming `variable` for an unknown or bad one. */
export function natsUrlOptions(url: URL, variable: string): NatsUrlOptions {
  const params = queryParams(url, NATS_URL_PARAMS, variable);
  const retention = params.retention;
  if (retention !== undefined && !['limits', 'interest', 'workqueue'].includes(retention)) {
    throw new ConfigError(variable, `retention must be limits, interest or workqueue; got "${retention}"`);
  }
  return {
    ...(params.subject_prefix !== undefined ? { subjectPrefix: params.subject_prefix } : {}),
    ...(params.stream !== undefined ? { stream: params.stream } : {}),
    ...(retention !== undefined ? { retention: retention as NatsUrlOptions['retention'] } : {}),
    ...(params.max_age_s !== undefined ? { maxAgeS: wholeSeconds(params.max_age_s, variable) } : {}),
  };
}

/**
 * One setting given in code (`option`) and/or in the URL (`param`): either, or both when equal.
 * @throws ConfigError naming `option` when they differ.
 */
export function fromCodeOrUrl<T>(
  code: T | undefined,
  url: T | undefined,
  option: string,
  param: string,
): T | undefined {
  if (code !== undefined && url !== undefined && code !== url) {
    throw new ConfigError(
      option,
      `is ${JSON.stringify(code)} but the URL's ${param} is ${JSON.stringify(url)}; set it in one place`,
    );
  }
  return code ?? url;
}

/** The URL with credentials but without query or fragment (what the client connects to). */
export function connectUrl(url: URL): string {
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${auth}${url.host}`;
}

function queryParams<K extends string>(
  url: URL,
  allowed: readonly K[],
  variable: string,
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const [name, value] of url.searchParams) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw new ConfigError(
        variable,
        `unknown query parameter "${name}" for ${url.protocol.replace(':', '')}; use ${allowed.join(', ')}`,
      );
    }
    out[name as K] = value;
  }
  return out;
}

function wholeSeconds(value: string, variable: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw new ConfigError(variable, `max_age_s must be a positive whole number of seconds; got "${value}"`);
  }
  return Number(value);
}

/** The credentials to connect with: those given in code, else the URL's user info (decoded). */
export function brokerCredentials(
  options: { username?: string; password?: string },
  url: URL,
): { username: string | undefined; password: string | undefined } {
  return {
    username: options.username ?? (url.username ? decodeURIComponent(url.username) : undefined),
    password: options.password ?? (url.password ? decodeURIComponent(url.password) : undefined),
  };
}

/**
 * The topic prefix of an MQTT transport or source: `topicPrefix` in code and/or `topic_prefix`
 * in the URL (default `rmk`). @throws ConfigError when they differ or the prefix is not a name.
 */
export function mqttTopicPrefix(code: string | undefined, fromUrl: MqttUrlOptions): string {
  const prefix = fromCodeOrUrl(code, fromUrl.topicPrefix, 'topicPrefix', 'topic_prefix');
  return checkPrefix(prefix ?? 'rmk', 'topicPrefix', '/');
}

/**
 * The subject prefix of a JetStream transport or source: `subjectPrefix` in code and/or
 * `subject_prefix` in the URL (default `rmk`). @throws ConfigError when they differ or it is not a name.
 */
export function natsSubjectPrefix(code: string | undefined, fromUrl: NatsUrlOptions): string {
  const prefix = fromCodeOrUrl(code, fromUrl.subjectPrefix, 'subjectPrefix', 'subject_prefix');
  return checkPrefix(prefix ?? 'rmk', 'subjectPrefix', '.');
}
