import { ConfigError, type Logger } from '@robot-mcp-kit/core';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type BrokerCommonOptions } from '../shared/broker-options.js';
import { errorText } from '../shared/signed-message.js';
import { parseBrokerUrl } from '../shared/broker-url.js';

/** @throws ConfigError naming `variable` unless `value` is a nats:// or tls:// URL. */
export function parseNatsUrl(value: unknown, variable: string): URL {
  return parseBrokerUrl(value, variable, ['nats:', 'tls:'], 'e.g. nats://127.0.0.1:4222');
}

/**
 * Connects once (failing after `timeoutMs` with the fix), then reconnects forever in the
 * background. Status changes are logged. @throws ConfigError naming `variable` with the fix.
 */
export async function connectNats(
  url: URL,
  options: Pick<BrokerCommonOptions, 'username' | 'password' | 'tls'> & { name?: string },
  timeoutMs: number,
  logger: Logger,
  variable = 'RVC_CALLBACK_URL',
): Promise<NatsConnection> {
  const user = options.username ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const pass = options.password ?? (url.password ? decodeURIComponent(url.password) : undefined);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: `${url.hostname}:${url.port || '4222'}`,
      ...(user !== undefined ? { user } : {}),
      ...(pass !== undefined ? { pass } : {}),
      ...(options.tls || url.protocol === 'tls:' ? { tls: { ...(options.tls ?? {}) } } : {}),
      ...(options.name !== undefined ? { name: options.name } : {}),
      timeout: timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
  } catch (err) {
    throw new ConfigError(
      variable,
      `cannot connect to NATS at ${url.host} (${errorText(err)}); start nats-server with JetStream (-js), ` +
        'or fix the host, port, credentials or TLS settings',
    );
  }
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') logger.warn('NATS disconnected; reconnecting');
      else if (status.type === 'reconnect') logger.info('NATS reconnected');
    }
  })().catch(() => undefined);
  return nc;
}
