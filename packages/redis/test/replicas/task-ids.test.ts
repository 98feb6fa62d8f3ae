import { describe, expect, it } from '@jest/globals';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exitOf } from '../../../../test/support/processes.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { connectAdmin } from '../redis-test.helpers.js';
import { CommandFeed } from './command-feed.helpers.js';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import {
  connectClient,
  privateStoreWithReceiver,
  REPLICA_SECRET,
  replicaSuite,
  startReplica,
  startReplicas,
  startTask,
} from './store-replicas.helpers.js';

const TASKS = 5;

async function getTask(client: Client, taskId: string): Promise<Record<string, unknown>> {
  const reply = (await client.callTool({
    name: 'get_task',
    arguments: { task_id: taskId },
  })) as CallToolResult;
  return reply.structuredContent as Record<string, unknown>;
}

describe('task ids across replicas sharing a store (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('two replicas whose id generators draw the same ids still hand out distinct ids, each answered as its own task', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    // both replicas draw 000001, 000002, ... (a fake at the kit's id generator port): every id B
    // draws first was handed out by A already
    const env = { FAKE_TASK_IDS: 'sequential' };
    const [a, b] = await startReplicas(resources, { prefix, callbackUrl, env }, [{}, {}]);
    const [clientA, clientB] = await Promise.all([
      connectClient(resources, a.url),
      connectClient(resources, b.url),
    ]);

    const onA: string[] = [];
    const onB: string[] = [];
    for (let i = 0; i < TASKS; i += 1) onA.push(await startTask(clientA, 'hold'));
    for (let i = 0; i < TASKS; i += 1) onB.push(await startTask(clientB, 'burst'));

    expect(onA.every((id) => /^burs-[0-9a-f]{6}$/.test(id))).toBe(true);
    expect(onB.every((id) => /^burs-[0-9a-f]{6}$/.test(id))).toBe(true);
    expect(new Set([...onA, ...onB]).size).toBe(2 * TASKS);
    // every replica answers each id with the one task it names
    for (const client of [clientA, clientB]) {
      for (const id of onA) expect(await getTask(client, id)).toMatchObject({ task_id: id, tool: 'hold' });
      for (const id of onB) expect(await getTask(client, id)).toMatchObject({ task_id: id, tool: 'burst' });
    }
    // the reservations are in the store, named by the replica that holds each id
    const admin = await connectAdmin();
    try {
      const owners = await admin.mGet([...onA, ...onB].map((id) => `${prefix}id:${id}`));
      expect(new Set(owners.slice(0, TASKS)).size).toBe(1);
      expect(new Set(owners.slice(TASKS)).size).toBe(1);
      expect(owners[0]).not.toBe(owners[TASKS]);
      expect(owners.every((owner) => typeof owner === 'string' && owner.length > 0)).toBe(true);
    } finally {
      await admin.close();
    }
  }, 240_000);
  it('a replica that closes releases the reservations of the ids it reserved ahead and did not use, in one round trip; its tasks keep theirs', async () => {
    // a Redis of this test's own: its MONITOR feed shows this replica's commands alone
    const { redis, callbackUrl } = await privateStoreWithReceiver(resources);
    const a = await startReplica(resources, { prefix, callbackUrl, env: { RMK_STORE: redis.url } });
    const client = await connectClient(resources, a.url);
    const started: string[] = [];
    for (let i = 0; i < 3; i += 1) started.push(await startTask(client, 'hold'));
    const admin = await connectAdmin(redis.url);
    resources.onCleanup(() => admin.close());
    // the first start reserved a batch ahead: more ids are held than tasks use
    const held = await reservedIds(admin, prefix);
    expect(held.length).toBeGreaterThan(started.length);
    expect(held).toEqual(expect.arrayContaining(started));
    const unused = held.filter((id) => !started.includes(id));
    const feed = await CommandFeed.open(redis.url);
    resources.onCleanup(() => feed.close());
    const from = await feed.mark(admin);

    const exited = exitOf(a.child);
    a.child.kill('SIGTERM'); // the graceful shutdown: tasks cancelled, then the store closed
    expect(await exited).toBe(0);

    expect((await reservedIds(admin, prefix)).sort()).toEqual([...started].sort());
    const owners = await admin.mGet(started.map((id) => `${prefix}id:${id}`));
    expect(owners.every((owner) => typeof owner === 'string' && owner.length > 0)).toBe(true);
    // every unused id released by one command (its script's text sent along: no NOSCRIPT retry)
    const sent = feed.sentBetween(from, await feed.mark(admin));
    const releases = sent.filter((line) => unused.some((id) => line.includes(`"${prefix}id:${id}"`)));
    expect(releases).toHaveLength(1);
    expect(releases[0]).toMatch(/^\S+ \[\d+ [^\]]+\] "eval" /i);
    for (const id of unused) expect(releases[0]).toContain(`"${prefix}id:${id}"`);
  }, 240_000);
});

/** The task ids reserved under `prefix` (its `id:<id>` keys). */
async function reservedIds(admin: RedisClient, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}id:*`, COUNT: 500 })) {
    ids.push(...keys.map((key) => key.slice(`${prefix}id:`.length)));
  }
  return ids;
}
