import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../../../../test/support/until.js';
import { SkewTolerantReceiver } from './event-receiver.helpers.js';
import {
  connectClient,
  type Replica,
  sharedReplicaSuite,
  START_LIMIT_MS,
  startReplicas,
  startTask,
} from './store-replicas.helpers.js';

describe('tasks:// updates across replicas (real processes, real Redis, the SDK client)', () => {
  // Both tests run on the same two replicas: each watches a task of its own, started in the test.
  const { resources, shared, prefix } = sharedReplicaSuite();
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    const receiver = new SkewTolerantReceiver();
    const callbackUrl = await receiver.start();
    shared.onCleanup(() => receiver.close());
    [a, b] = await startReplicas(shared, { prefix, callbackUrl }, [
      { RMK_REPLICA_ID: 'robot-a' },
      { RMK_REPLICA_ID: 'robot-b' },
    ]);
  }, START_LIMIT_MS);

  it('a client subscribed to tasks://<id> on replica A is told when the task changes on replica B', async () => {
    const onA = await connectClient(resources, a.url);
    const onB = await connectClient(resources, b.url);
    const updated: string[] = [];
    onA.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));

    const taskId = await startTask(onB, 'hold');
    const uri = `tasks://${taskId}`;
    await onA.subscribeResource({ uri });
    const before = updated.length;
    await onB.callTool({ name: 'cancel_task', arguments: { task_id: taskId } });
    await waitFor('an update of the task on A', () => updated.slice(before).includes(uri), 60_000, a.exited);
    const read = await onA.readResource({ uri });
    const text = (read.contents[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ task_id: taskId, state: 'cancelled' });
  }, 240_000);

  it('a 2026-07-28 client listening on replica B is told when a task of replica A finishes', async () => {
    const onA = await connectClient(resources, a.url);
    const taskId = await startTask(onA, 'hold');
    const uri = `tasks://${taskId}`;

    const onB = await modernClient(b);
    const updated: string[] = [];
    onB.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    const subscription = await onB.listen({ resourceSubscriptions: [uri] });
    resources.onCleanup(() => subscription.close());
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual([uri]);

    await onA.callTool({ name: 'cancel_task', arguments: { task_id: taskId } });
    // Each update is followed by a read (an update of the start may still be on its way): the
    // task's end reaches B as an update after which B reads it cancelled.
    let seen = 0;
    let last: unknown;
    await waitFor(
      'an update of the task on B after which it reads cancelled',
      async () => {
        if (updated.length === seen) return false;
        seen = updated.length;
        const read = await onB.readResource({ uri });
        last = JSON.parse((read.contents[0] as { text: string }).text);
        return (last as { state?: string }).state === 'cancelled';
      },
      60_000,
      b.exited,
    );
    expect(updated.every((u) => u === uri)).toBe(true);
    expect(last).toMatchObject({ task_id: taskId, state: 'cancelled' });
  }, 240_000);

  /** The official v2 SDK client, pinned to MCP 2026-07-28 (no session), closed by `resources`. */
  async function modernClient(replica: Replica): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'store-replicas-2026', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernTransport(new URL(replica.url)));
    resources.onCleanup(() => client.close());
    return client;
  }
});
