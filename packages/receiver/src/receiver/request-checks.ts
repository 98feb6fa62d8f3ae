import { verify } from '@robot-mcp-kit/core';
import { type HeaderBag } from './receiver.types.js';

/** Why a request was refused before its body was looked at. */
export type PrecheckFailure =
  { readonly status: 405 } | { readonly status: 415; readonly reason: string } | { readonly status: 413 };

/** Why a request was refused as unauthenticated (401). */
export type AuthFailure =
  | 'unknown_server'
  | 'missing_signature'
  | 'bad_signature'
  | 'missing_timestamp'
  | 'bad_timestamp'
  | 'timestamp_skew';

export type AuthResult =
  | { readonly ok: true; readonly server: string }
  | { readonly ok: false; readonly reason: AuthFailure; readonly server?: string };

/** `application/json` or `application/<anything>+json`, with parameters after `;`. */
const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.+-]+\+json)$/;
const TIMESTAMP = /^-?\d{1,16}$/;
const DIGITS = /^\d+$/;

/** A header's single value; repeated or missing headers give `undefined`. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The checks that need only the method and the headers: method, content type, declared size. */
export function precheck(
  method: string | undefined,
  headers: HeaderBag,
  maxBodyBytes: number,
): PrecheckFailure | undefined {
  if (method !== 'POST') return { status: 405 };
  const contentType = checkContentType(header(headers, 'content-type'));
  if (contentType) return { status: 415, reason: contentType };
  const encoding = header(headers, 'content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') return { status: 415, reason: 'content_encoding' };
  const length = header(headers, 'content-length')?.trim();
  if (length && DIGITS.test(length) && Number(length) > maxBodyBytes) return { status: 413 };
  return undefined;
}

/** `undefined` when the content type is JSON in UTF-8; otherwise why not. */
function checkContentType(value: string | undefined): string | undefined {
  if (value === undefined) return 'missing_content_type';
  const [type = '', ...params] = value.split(';');
  if (!JSON_TYPE.test(type.trim().toLowerCase())) return 'not_json';
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return 'charset_not_utf8';
  }
  return undefined;
}

/**
 * Picks the secret by `X-RVC-Server` and checks the timestamp skew and the HMAC over the raw
 * bytes (core's `verify`, constant time). The reasons are told apart only for the answer and the log.
 */
export function authenticate(
  headers: HeaderBag,
  body: Uint8Array,
  secrets: ReadonlyMap<string, string>,
  maxSkewS: number,
  nowMs: number,
): AuthResult {
  const server = header(headers, 'x-rvc-server')?.trim();
  const secret = server === undefined ? undefined : secrets.get(server);
  if (server === undefined || secret === undefined) return { ok: false, reason: 'unknown_server', server };
  const signature = header(headers, 'x-rvc-signature');
  if (signature === undefined || signature.trim() === '')
    return { ok: false, reason: 'missing_signature', server };
  const timestamp = header(headers, 'x-rvc-timestamp')?.trim();
  if (timestamp === undefined || timestamp === '') return { ok: false, reason: 'missing_timestamp', server };
  if (!TIMESTAMP.test(timestamp) || !Number.isSafeInteger(Number(timestamp))) {
    return { ok: false, reason: 'bad_timestamp', server };
  }
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > maxSkewS) {
    return { ok: false, reason: 'timestamp_skew', server };
  }
  if (!verify(secret, timestamp, body, signature, { maxSkewS, nowMs })) {
    return { ok: false, reason: 'bad_signature', server };
  }
  return { ok: true, server };
}

/** At most the first 8 hex characters of a signature header, for logs. */
export function signaturePrefix(headers: HeaderBag): string | undefined {
  const value = header(headers, 'x-rvc-signature')?.trim();
  if (!value) return undefined;
  const hex = value.startsWith('sha256=') ? value.slice('sha256='.length) : value;
  return hex.replace(/[^0-9a-fA-F]/g, '').slice(0, 8);
}

/** A header value cut short and stripped of control characters, for logs. */
export function loggable(value: string | undefined, max = 64): string | undefined {
  if (value === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, max);
}
