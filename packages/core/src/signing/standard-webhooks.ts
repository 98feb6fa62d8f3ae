import { createHmac } from 'node:crypto';
import { ConfigError } from '../errors/kit.error.js';

/** Standard Webhooks signing for HTTP delivery, beside the spec's `X-RVC-*` headers. */
export interface StandardWebhooksOptions {
  /**
   * One or more secrets (`whsec_<base64>`, or bare base64). Every one signs each request, so a
   * receiver holding either the old or the new secret verifies during a rotation.
   */
  secrets: readonly string[];
}

/** The header names of the Standard Webhooks specification. */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key bytes of one secret: base64 after the optional `whsec_` prefix.
 * @throws ConfigError naming `variable` when it is not base64 or shorter than 16 bytes.
 */
export function standardWebhookKey(secret: string, variable = 'secrets'): Buffer {
  const text = typeof secret === 'string' ? secret.trim() : '';
  const encoded = text.startsWith(SECRET_PREFIX) ? text.slice(SECRET_PREFIX.length) : text;
  const key = BASE64.test(encoded) && encoded.length % 4 === 0 ? Buffer.from(encoded, 'base64') : undefined;
  if (!key || key.length < 16) {
    throw new ConfigError(
      variable,
      'each secret must be "whsec_" followed by the base64 of at least 16 random bytes ' +
        "(e.g. `node -e \"console.log('whsec_'+crypto.randomBytes(32).toString('base64'))\"`)",
    );
  }
  return key;
}

/** Splits a space- or comma-separated list of secrets and checks each. @throws ConfigError. */
export function parseStandardWebhookSecrets(value: string, variable: string): string[] {
  const secrets = value.split(/[\s,]+/).filter((s) => s !== '');
  if (secrets.length === 0) throw new ConfigError(variable, 'must hold at least one whsec_ secret');
  for (const secret of secrets) standardWebhookKey(secret, variable);
  return secrets;
}

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` for one key. */
export function standardWebhookSignature(
  key: Uint8Array,
  id: string,
  timestamp: number | string,
  body: string | Uint8Array,
): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/**
 * Signs requests with the Standard Webhooks scheme: `webhook-id` (the event_id),
 * `webhook-timestamp` (unix seconds) and `webhook-signature` (space-separated `v1,<base64>`,
 * one per secret).
 */
export class StandardWebhooksSigner {
  private readonly keys: readonly Buffer[];

  /** @throws ConfigError when there is no secret or one is malformed. */
  constructor(options: StandardWebhooksOptions) {
    if (!Array.isArray(options?.secrets) || options.secrets.length === 0) {
      throw new ConfigError('standardWebhooks.secrets', 'must list at least one whsec_ secret');
    }
    this.keys = options.secrets.map((s) => standardWebhookKey(s, 'standardWebhooks.secrets'));
  }

  /** The three headers for one request. */
  headers(id: string, timestamp: number, body: string | Uint8Array): Record<string, string> {
    return {
      [STANDARD_WEBHOOK_HEADERS.id]: id,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [STANDARD_WEBHOOK_HEADERS.signature]: this.keys
        .map((key) => standardWebhookSignature(key, id, timestamp, body))
        .join(' '),
    };
  }
}
