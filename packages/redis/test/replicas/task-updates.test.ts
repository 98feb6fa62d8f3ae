import { describe, expect, it } from '@jest/globals';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../../../../test/support/until.js';
import { SkewTolerantReceiver } from './event-receiver.helpers.js';
import { connectClient, replicaSuite, startReplica, startTask } from './store-replicas.helpers.js';

describe('tasks:// updates across replicas (real processes, real Redis, the SDK client)', () => {
  const { resources, prefix } = replicaSuite();

  it('a client subscribed to tasks://<id> on replica A is told when the task changes on replica B', async () => {
    const receiver = new SkewTolerantReceiver();
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const a = await startReplica(resources, { prefix, callbackUrl, env: { RMK_REPLICA_ID: 'robot-a' } });
    const b = await startReplica(resources, { prefix, callbackUrl, env: { RMK_REPLICA_ID: 'robot-b' } });
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
});
