import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net';
import { type EventType, signatureHeader, TaskEvent } from '@robot-mcp-kit/core';
import { type EventReceiver } from '@robot-mcp-kit/receiver';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { createClient } from 'redis';
import { until as waitUntil } from '../../../test/support/until.js';

export const SECRET = 'redis-test-secret-0123456789abcdef';
export const SECRETS = { sleeper: SECRET };
export const SHARED_REDIS_URL = 'redis://127.0.0.1:6379/0';

/** A connected client on the shared Redis (or `url`) for a test's own checks and clean-up. */
export async function connectAdmin(url = SHARED_REDIS_URL): Promise<RedisClient> {
  const admin = createClient({ url });
  await admin.connect();
  return admin as RedisClient;
}

/** `calls` of each command in `INFO commandstats` of the Redis at `url`, by lower-case name. */
export async function commandCalls(url: string): Promise<Map<string, number>> {
  const admin = createClient({ url });
  await admin.connect();
  try {
    const info = await admin.info('commandstats');
    const calls = new Map<string, number>();
    for (const m of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
    return calls;
  } finally {
    await admin.close();
  }
}

/** Deletes every key under `prefix` (SCAN, so a large test keyspace does not block Redis). */
export async function deleteKeys(admin: RedisClient, prefix: string): Promise<void> {
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length > 0) await admin.del(keys);
  }
}

/** The shared `until` with a 30 s safety net (broker and Redis restarts are slow on a loaded machine). */
export const until = (condition: () => unknown, what: string, limitMs = 30_000): Promise<void> =>
  waitUntil(condition, what, limitMs);

/** A real node:http server on 127.0.0.1 (OS-picked port) serving a receiver. */
export interface RunningReceiver {
  readonly url: string;
  close(): Promise<void>;
}

export async function serve(receiver: EventReceiver): Promise<RunningReceiver> {
  const server: Server = createServer(receiver.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/agent/events`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let counter = 0;

/** A valid TaskEvent with a fresh event_id. */
export function makeEvent(seq = 1, taskId = 'slee-000001'): TaskEvent {
  counter += 1;
  return TaskEvent.create({
    event_id: randomUUID(),
    task_id: taskId,
    server: 'sleeper',
    tool: 'sleep_task',
    type: 'progress' as EventType,
    seq,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60)),
    payload: { percent: 10 },
  });
}

export interface Reply {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: Record<string, unknown>;
}

/** POSTs an event signed with the core signer, as the poster does. */
export async function post(url: string, event: TaskEvent): Promise<Reply> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-rvc-server': 'sleeper',
      'x-rvc-timestamp': String(timestamp),
      'x-rvc-signature': signatureHeader(SECRET, timestamp, body),
    },
    body,
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

/** A TCP port that was free a moment ago (the OS picked it). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A private, throw-away redis-server of this test (never the shared one on 6379). */
export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGKILL by its pid, as a crash) and waits for the exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await until(() => accepts(port), `redis-server on port ${port}`);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}/0`, stop, start };
}

/** A TCP listener standing in for Redis that only counts the connections made to it. */
export async function countingListener(): Promise<{
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}/0`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
