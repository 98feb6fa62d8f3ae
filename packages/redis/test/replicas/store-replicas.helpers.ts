import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  listeningUrl,
  requireBuilt,
  Resources,
  type Spawned,
  spawnNode,
} from '../../../../test/support/processes.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import {
  connectAdmin,
  deleteKeys,
  type PrivateRedis,
  privateRedis,
  SHARED_REDIS_URL,
} from '../redis-test.helpers.js';

export const REPLICA_SECRET = 'store-replicas-secret-0123456789abcdef';
const REPLICA = join(import.meta.dirname, '..', 'fixtures', 'store-replica.mjs');
const PACKAGES = join(import.meta.dirname, '..', '..', '..');

/** Fails with the fix when the packages the replica fixture runs are not built. */
export function requireReplicaBuilt(): void {
  requireBuilt(
    join(PACKAGES, 'server', 'dist', 'bundle', 'index.js'),
    join(PACKAGES, 'redis', 'dist', 'server', 'index.js'),
    join(PACKAGES, 'core', 'dist', 'bundle', 'index.js'),
  );
}

/**
 * What every replica suite starts with, called in its `describe`: the built fixture required, a
 * {@link Resources} bag and a key prefix of its own, both cleaned after each test.
 */
export function replicaSuite(): { resources: Resources; prefix: string } {
  const resources = new Resources();
  const prefix = uniquePrefix();
  beforeAll(() => requireReplicaBuilt());
  afterEach(async () => {
    await resources.cleanup();
    await dropPrefix(prefix);
  });
  return { resources, prefix };
}

/**
 * {@link replicaSuite} for tests that share processes: `shared` (the replicas, receivers and clients a
 * `beforeAll` starts) and the store under `prefix` last until the file's last test, `resources` is
 * cleaned after each test. Only for tests that need no fresh replica: none kills, stops or latches
 * the shared ones, and what a test asserts on a shared replica's log is what it logged since then.
 */
export function sharedReplicaSuite(): { resources: Resources; shared: Resources; prefix: string } {
  const resources = new Resources();
  const shared = new Resources();
  const prefix = uniquePrefix();
  beforeAll(() => requireReplicaBuilt());
  afterEach(() => resources.cleanup());
  afterAll(async () => {
    await shared.cleanup();
    await dropPrefix(prefix);
  });
  return { resources, shared, prefix };
}

/** How long a `beforeAll` starting replicas may take (a safety net: a loaded machine is slow). */
export const START_LIMIT_MS = 180_000;

/** One replica of the fixture server (`store-replica.mjs`), listening on its own port. */
export interface Replica extends Spawned {
  readonly url: string;
}

/** A key prefix of this test's own under the shared Redis; {@link dropPrefix} deletes its keys. */
export function uniquePrefix(): string {
  return `rmk-test:${randomUUID()}:`;
}

export async function dropPrefix(prefix: string): Promise<void> {
  const admin = await connectAdmin();
  try {
    await deleteKeys(admin, prefix);
  } finally {
    await admin.close();
  }
}

/** How long one replica may take to listen (a safety net: on a loaded machine a start is slow). */
const LISTEN_LIMIT_MS = 60_000;

/**
 * Starts a replica sharing the store under `prefix`, with `env` on top; resolves once it listens
 * (`limitMs`: the safety net, longer when other starts share the machine at the same time).
 */
export async function startReplica(
  resources: Resources,
  options: { prefix: string; callbackUrl: string; env?: Record<string, string>; limitMs?: number },
): Promise<Replica> {
  const spawned = spawnNode(resources, REPLICA, {
    MCP_TRANSPORT: 'streamable-http',
    MCP_PORT: '0',
    RMK_STORE: SHARED_REDIS_URL,
    RMK_STORE_PREFIX: options.prefix,
    RVC_CALLBACK_URL: options.callbackUrl,
    RVC_EVENT_SECRET: REPLICA_SECRET,
    ...options.env,
  });
  const url = await listeningUrl(spawned, options.limitMs ?? LISTEN_LIMIT_MS);
  return { ...spawned, url };
}

/**
 * Starts one replica per entry of `envs` (each on top of `options.env`) at the same time, all sharing
 * the store under `options.prefix`; resolves once every one listens. A start is mostly loading the
 * built modules, so the starts overlap instead of queueing one after another.
 */
export async function startReplicas<const Envs extends readonly Record<string, string>[]>(
  resources: Resources,
  options: { prefix: string; callbackUrl: string; env?: Record<string, string> },
  envs: Envs,
): Promise<{ -readonly [K in keyof Envs]: Replica }> {
  // the starts share the machine: each gets the time they would have had one after another
  const limitMs = LISTEN_LIMIT_MS * envs.length;
  const started = await Promise.all(
    envs.map((env) => startReplica(resources, { ...options, env: { ...options.env, ...env }, limitMs })),
  );
  return started as { -readonly [K in keyof Envs]: Replica };
}

/**
 * A Redis of the test's own (its command counts and MONITOR feed are the replica's alone) and a
 * signed receiver for the replica's events, both stopped by `resources`.
 */
export async function privateStoreWithReceiver(
  resources: Resources,
): Promise<{ redis: PrivateRedis; receiver: SignedReceiver; callbackUrl: string }> {
  const redis = await privateRedis();
  resources.onCleanup(() => redis.stop());
  const receiver = new SignedReceiver(REPLICA_SECRET);
  const callbackUrl = await receiver.start();
  resources.onCleanup(() => receiver.close());
  return { redis, receiver, callbackUrl };
}

/** An MCP SDK client of a replica, closed by `resources`. */
export async function connectClient(resources: Resources, url: string): Promise<Client> {
  const client = new Client({ name: 'store-replicas-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  resources.onCleanup(() => client.close());
  return client;
}

/** Calls a long-running tool of the fixture; resolves with the task id it answered. */
export async function startTask(client: Client, tool: 'burst' | 'hold' | 'tick'): Promise<string> {
  const started = (await client.callTool({ name: tool, arguments: {} })) as CallToolResult;
  if (started.isError) throw new Error(`${tool} failed: ${JSON.stringify(started.content)}`);
  return (started.structuredContent as { task_id: string }).task_id;
}
