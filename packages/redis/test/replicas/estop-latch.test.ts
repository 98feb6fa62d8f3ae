import { describe, expect, it } from '@jest/globals';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { connectAdmin } from '../redis-test.helpers.js';
import {
  connectClient,
  REPLICA_SECRET,
  replicaSuite,
  startReplica,
  startReplicas,
  startTask,
} from './store-replicas.helpers.js';

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls `drive`: its task id, or the refusal's structured content. */
async function drive(client: Client): Promise<{ task_id?: string; error_code?: string }> {
  const reply = await callTool(client, 'drive');
  return reply.structuredContent as { task_id?: string; error_code?: string };
}

describe('the e-stop latches on every replica sharing the store (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('an e-stop on one replica refuses actuation on both with ESTOPPED until a re-arm on the other', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const [one, two] = await startReplicas(resources, { prefix, callbackUrl }, [{}, {}]);
    const [onOne, onTwo] = await Promise.all([
      connectClient(resources, one.url),
      connectClient(resources, two.url),
    ]);

    const before = await drive(onTwo);
    expect(before.task_id).toEqual(expect.any(String));

    // the e-stop on replica 1 cancels nothing there, but latches for replica 2 too
    expect((await callTool(onOne, 'estop')).isError).toBeFalsy();
    for (const client of [onOne, onTwo]) {
      const refused = await callTool(client, 'drive');
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error_code: 'ESTOPPED' });
    }
    // reading and non-actuating tools still work
    expect((await callTool(onTwo, 'list_tasks')).isError).toBeFalsy();
    expect(await startTask(onTwo, 'hold')).toEqual(expect.any(String));

    // a latch record forged to "released" without the store key does not release the robot
    const admin = await connectAdmin();
    try {
      const key = `${prefix}estop`;
      const genuine = await admin.get(key);
      expect(genuine).toContain('"latched":true');
      await admin.set(key, JSON.stringify({ latched: false, by: 'mallory', at: new Date().toISOString() }));
      expect((await drive(onOne)).error_code).toBe('ESTOPPED');
      await admin.set(key, genuine!);
    } finally {
      await admin.close();
    }

    expect((await callTool(onTwo, 'rearm')).isError).toBeFalsy();
    expect((await drive(onOne)).task_id).toEqual(expect.any(String));
    expect((await drive(onTwo)).task_id).toEqual(expect.any(String));
  }, 240_000);

  it('the e-stop cancels the running actuating tasks of the replica it reaches', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const one = await startReplica(resources, { prefix, callbackUrl });
    const client = await connectClient(resources, one.url);
    const driving = (await drive(client)).task_id!;
    const watching = await startTask(client, 'hold');
    await callTool(client, 'estop');
    const state = async (taskId: string) =>
      ((await callTool(client, 'get_task', { task_id: taskId })).structuredContent as { state: string })
        .state;
    expect(await state(driving)).toBe('cancelled');
    expect(await state(watching)).toBe('running');
  });
});
