import { type FieldIssue } from '@robot-mcp-kit/core';
import { type ReceiverResponse, type ReceiverResponseBody } from './receiver.types.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

function answer(
  status: number,
  body: ReceiverResponseBody,
  extra: Record<string, string> = {},
): ReceiverResponse {
  return { status, headers: { ...JSON_HEADERS, ...extra }, body };
}

/** The answers of the receiver, one builder per row of the table in docs/receiver.md. */
export const responses = {
  accepted: (): ReceiverResponse => answer(200, { ok: true }),
  duplicate: (): ReceiverResponse => answer(200, { ok: true, duplicate: true }),
  invalidEvent: (issues: readonly FieldIssue[]): ReceiverResponse =>
    answer(400, {
      error: 'invalid_event',
      issues: issues.map((i) => ({ field: i.field, problems: [...i.problems] })),
    }),
  unauthorized: (reason: string): ReceiverResponse => answer(401, { error: 'unauthorized', reason }),
  methodNotAllowed: (): ReceiverResponse => answer(405, { error: 'method_not_allowed' }, { allow: 'POST' }),
  payloadTooLarge: (maxBytes: number): ReceiverResponse =>
    answer(413, { error: 'payload_too_large', max_bytes: maxBytes }),
  unsupportedMediaType: (reason: string): ReceiverResponse =>
    answer(415, { error: 'unsupported_media_type', reason }, { accept: 'application/json' }),
  deliveryFailed: (): ReceiverResponse => answer(500, { error: 'delivery_failed' }),
  internal: (): ReceiverResponse => answer(500, { error: 'internal_error' }),
  bodyAlreadyRead: (): ReceiverResponse =>
    answer(500, {
      error: 'internal_error',
      reason: 'body_already_read: mount the event receiver before any body parser',
    }),
  closing: (): ReceiverResponse => answer(503, { error: 'closing' }, { 'retry-after': '1' }),
  dedupeFull: (retryAfterS: number): ReceiverResponse =>
    answer(503, { error: 'dedupe_full' }, { 'retry-after': String(retryAfterS) }),
  dedupeUnavailable: (retryAfterS: number): ReceiverResponse =>
    answer(503, { error: 'dedupe_unavailable' }, { 'retry-after': String(retryAfterS) }),
  seqStateUnavailable: (retryAfterS: number): ReceiverResponse =>
    answer(503, { error: 'seq_state_unavailable' }, { 'retry-after': String(retryAfterS) }),
};
