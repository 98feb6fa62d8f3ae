import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll } from '@jest/globals';
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
import { connectAdmin, deleteKeys, SHARED_REDIS_URL } from '../redis-test.helpers.js';

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

/** Starts a replica sharing the store under `prefix`, with `env` on top; resolves once it listens. */
export async function startReplica(
  resources: Resources,
  options: { prefix: string; callbackUrl: string; env?: Record<string, string> },
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
  const url = await listeningUrl(spawned, 60_000);
  return { ...spawned, url };
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
