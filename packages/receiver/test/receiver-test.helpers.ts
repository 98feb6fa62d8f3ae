import { randomUUID } from 'node:crypto';
import {
  type IncomingHttpHeaders,
  type RequestListener,
  type Server,
  createServer,
  request,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { type EventType, signatureHeader, TaskEvent } from '@robot-mcp-kit/core';

export const SECRET = 'test-secret-0123456789abcdef';
export const OTHER_SECRET = 'other-secret-fedcba9876543210';
export const SECRETS = { sleeper: SECRET, navigation: OTHER_SECRET };

/** A real node:http server on 127.0.0.1, random port. */
export interface Running {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function listen(handler: RequestListener): Promise<Running> {
  const server = createServer(handler);
  return listenServer(server);
}

export async function listenServer(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/agent/events`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let counter = 0;

/** A valid TaskEvent (fresh event_id each time). */
export function makeEvent(overrides: Partial<Parameters<typeof TaskEvent.create>[0]> = {}): TaskEvent {
  counter += 1;
  return TaskEvent.create({
    event_id: randomUUID(),
    task_id: 'slee-000001',
    server: 'sleeper',
    tool: 'sleep_task',
    type: 'progress' as EventType,
    seq: 1,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60)),
    payload: { percent: 10 },
    ...overrides,
  });
}

/** The signed headers of a body, as the poster sends them. */
export function signedHeaders(
  body: string | Buffer,
  options: { secret?: string; server?: string; nowMs?: number; timestamp?: number | string } = {},
): Record<string, string> {
  const timestamp = options.timestamp ?? Math.floor((options.nowMs ?? Date.now()) / 1000);
  return {
    'content-type': 'application/json',
    'x-rvc-server': options.server ?? 'sleeper',
    'x-rvc-timestamp': String(timestamp),
    'x-rvc-signature': signatureHeader(options.secret ?? SECRET, timestamp, body),
  };
}

/** What came back. */
export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

/**
 * One request with node:http (full control over method, headers and body chunks). `chunks`
 * are written one by one; with `waitForResponse`, the request is not ended until the answer came.
 */
export function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | number>;
    body?: string | Buffer;
    chunks?: readonly Buffer[];
    endAfterResponse?: boolean;
  } = {},
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'POST',
      headers: options.headers ?? {},
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        if (options.endAfterResponse) req.destroy();
      });
    });
    req.flushHeaders();
    for (const chunk of options.chunks ?? []) req.write(chunk);
    if (options.endAfterResponse) return;
    req.end(options.body);
  });
}

/** POSTs `event` signed like the poster does. */
export function postEvent(
  url: string,
  event: TaskEvent | string,
  options: { secret?: string; server?: string; nowMs?: number; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const body = typeof event === 'string' ? event : JSON.stringify(event);
  return send(url, { body, headers: { ...signedHeaders(body, options), ...options.headers } });
}

// `waitFor(condition, limitMs)` and `deferred()`: the one set of wait helpers lives in test/support.
export { deferred, waitFor } from '../../../test/support/until.js';
