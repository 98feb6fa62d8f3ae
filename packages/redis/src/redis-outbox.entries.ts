import { parseTaskEvent } from '@robot-mcp-kit/core';
import { type OutboxRecord } from '@robot-mcp-kit/core/store';

/** One stream entry as read back; `fields` is undefined for an entry deleted while still pending. */
export interface StreamEntry {
  readonly id: string;
  readonly fields: Record<string, string> | undefined;
}

type RawEntry = [string, string[] | null];

/**
 * The entries of a raw one-stream XREADGROUP reply: `[[key, entries]]`, or `{ key: entries }` (a
 * map reply); a history read answers a deleted entry as `[id, nil]`.
 */
export function entriesOf(reply: unknown): StreamEntry[] {
  if (reply === null || typeof reply !== 'object') return [];
  const first: unknown = Array.isArray(reply)
    ? (reply[0] as unknown[] | undefined)?.[1]
    : Object.values(reply)[0];
  const raw = Array.isArray(first) ? (first as RawEntry[]) : [];
  return raw.map(([id, flat]) => ({ id, fields: flat ? pairs(flat) : undefined }));
}

/** The record stored in an entry's fields (`b` body, `p` first post time). @throws when it is not a valid event. */
export function recordOf(fields: Record<string, string>): OutboxRecord {
  const body = fields.b ?? '';
  return { event: parseTaskEvent(body), body, postedAtMs: Number(fields.p) };
}

/** The records grouped by task (first appearance first), each task's in `seq` order. */
export function inSeqOrder(records: readonly OutboxRecord[]): OutboxRecord[] {
  const byTask = new Map<string, OutboxRecord[]>();
  for (const record of records) {
    const list = byTask.get(record.event.task_id);
    if (list) list.push(record);
    else byTask.set(record.event.task_id, [record]);
  }
  return [...byTask.values()].flatMap((list) => list.sort((a, b) => a.event.seq - b.event.seq));
}

/** `[k1, v1, k2, v2]` as `{ k1: v1, k2: v2 }`. */
function pairs(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

/** The message of an error (also of one from another realm, where `instanceof Error` fails). */
export function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
