import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header name and prefix of the signature (spec §3.1). */
export const SIGNATURE_PREFIX = 'sha256=';

/** Options of {@link verify}. */
export interface VerifyOptions {
  /** Largest allowed distance between the timestamp and now, both ways (default 300 s). */
  maxSkewS?: number;
  /** "Now" in unix milliseconds (default `Date.now()`), for tests and fake clocks. */
  nowMs?: number;
}

type Body = string | Uint8Array;

/**
 * `hex(HMAC_SHA256(utf8(secret), utf8(timestamp + ".") + body))` — byte-compatible with the
 * Python spec's `sign()`. A string body is taken as UTF-8.
 */
export function sign(secret: string, timestamp: number | string, body: Body): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The `X-RVC-Signature` header value: `sha256=<hex>`. */
export function signatureHeader(secret: string, timestamp: number | string, body: Body): string {
  return SIGNATURE_PREFIX + sign(secret, timestamp, body);
}

const HEADER = /^sha256=([0-9a-fA-F]{64})$/;
const TIMESTAMP = /^-?\d{1,16}$/;

/**
 * Checks an `X-RVC-Signature` header in constant time, and that the timestamp is within
 * `maxSkewS` of now in either direction. Returns `false` — never throws — for a missing or
 * malformed header, non-hex, a wrong length, a bad timestamp or a skew.
 */
export function verify(
  secret: string,
  timestamp: number | string | null | undefined,
  body: Body,
  signature: string | null | undefined,
  options: VerifyOptions = {},
): boolean {
  if (typeof signature !== 'string' || typeof secret !== 'string') return false;
  const match = HEADER.exec(signature.trim());
  if (!match?.[1]) return false;
  const ts = parseTimestamp(timestamp);
  if (ts === undefined) return false;
  const maxSkewS = options.maxSkewS ?? 300;
  const nowS = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(nowS - ts) > maxSkewS) return false;
  const expected = createHmac('sha256', secret).update(`${ts}.`).update(body).digest();
  const given = Buffer.from(match[1], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parseTimestamp(value: number | string | null | undefined): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !TIMESTAMP.test(value.trim())) return undefined;
  const parsed = Number(value.trim());
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}
