import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Resources } from '../../../../test/support/processes.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { waitFor } from '../../../../test/support/until.js';
import {
  type Replica,
  REPLICA_SECRET,
  replicaSuite,
  startReplicas,
  startTask,
} from './store-replicas.helpers.js';

const TOKEN_A = 'token-of-alice-0123456789';
const TOKEN_B = 'token-of-bob-0123456789';
const TEST_TOKENS = `${TOKEN_A}:alice,${TOKEN_B}:bob`;

/** An MCP SDK client of `replica` sending `token` as its bearer token, closed by `resources`. */
async function clientOf(resources: Resources, replica: Replica, token: string): Promise<Client> {
  const client = new Client({ name: 'task-visibility-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(replica.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  resources.onCleanup(() => client.close());
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<unknown> {
  const reply = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return reply.structuredContent;
}

const listedIds = async (client: Client): Promise<string[]> =>
  ((await call(client, 'list_tasks', {})) as { tasks: { task_id: string }[] }).tasks.map((t) => t.task_id);

describe('who may see, list and cancel a task: one rule on every replica (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('another principal gets not_found from both replicas; the starter sees and cancels it from both', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const env = { TEST_TOKENS };
    const [one, two] = await startReplicas(resources, { prefix, callbackUrl, env }, [{}, {}]);
    const [aliceOn1, aliceOn2] = [
      await clientOf(resources, one, TOKEN_A),
      await clientOf(resources, two, TOKEN_A),
    ];
    const [bobOn1, bobOn2] = [
      await clientOf(resources, one, TOKEN_B),
      await clientOf(resources, two, TOKEN_B),
    ];

    const first = await startTask(aliceOn1, 'hold'); // owned by replica 1, principal alice
    const second = await startTask(aliceOn1, 'hold');

    // bob: the same answer from the owner replica and the other one
    for (const bob of [bobOn1, bobOn2]) {
      expect(await call(bob, 'get_task', { task_id: first })).toEqual({ error: 'not_found' });
      expect(await listedIds(bob)).toEqual([]);
      expect(await call(bob, 'cancel_task', { task_id: first })).toEqual({ error: 'not_found' });
    }
    // bob's cancel did nothing: alice still sees both running, from both replicas
    for (const alice of [aliceOn1, aliceOn2]) {
      expect(await call(alice, 'get_task', { task_id: first })).toMatchObject({
        task_id: first,
        state: 'running',
      });
      expect(await listedIds(alice)).toEqual([first, second]);
    }

    // alice cancels one from the owner replica and the other from the other replica
    expect(await call(aliceOn1, 'cancel_task', { task_id: first })).toMatchObject({ task_id: first });
    expect(await call(aliceOn2, 'cancel_task', { task_id: second })).toMatchObject({ task_id: second });
    for (const alice of [aliceOn1, aliceOn2]) {
      for (const id of [first, second]) {
        const state = async (): Promise<unknown> =>
          ((await call(alice, 'get_task', { task_id: id })) as { state?: string }).state;
        await waitFor(`${id} cancelled as alice reads it`, async () => (await state()) === 'cancelled');
      }
    }
    // a finished task too: bob still gets not_found on both replicas
    for (const bob of [bobOn1, bobOn2]) {
      expect(await call(bob, 'get_task', { task_id: second })).toEqual({ error: 'not_found' });
      expect(await listedIds(bob)).toEqual([]);
    }
  }, 240_000);
});
