import { describe, expect, it } from '@jest/globals';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { until, waitFor } from '../../../../test/support/until.js';
import { connectAdmin } from '../redis-test.helpers.js';
import {
  connectClient,
  REPLICA_SECRET,
  replicaSuite,
  startReplica,
  startTask,
} from './store-replicas.helpers.js';

const TASKS = 6;
const PROGRESS = 50;

describe('durable outbox of a replica with RMK_STORE (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('removes every delivered event: the stream is empty once the receiver has them all', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const replica = await startReplica(resources, {
      prefix,
      callbackUrl,
      env: { PROGRESS: String(PROGRESS) },
    });
    const client = await connectClient(resources, replica.url);

    const taskIds: string[] = [];
    for (let i = 0; i < TASKS; i += 1) taskIds.push(await startTask(client, 'burst'));
    // each task: PROGRESS progress events and its task_done, every one signed and accepted
    await waitFor(
      'every task_done at the receiver',
      () => taskIds.every((id) => receiver.events.some((e) => e.task_id === id && e.type === 'task_done')),
      60_000,
      replica.exited,
    );
    const accepted = receiver.received.filter((r) => r.verified && taskIds.includes(r.event.task_id));
    expect(new Set(accepted.map((r) => r.event.event_id)).size).toBeGreaterThanOrEqual(
      TASKS * (PROGRESS + 1),
    );

    const admin = await connectAdmin();
    try {
      const stream = `${prefix}outbox:{burst}`;
      let left = -1;
      await until(
        async () => (left = await admin.xLen(stream)) === 0,
        () => `the outbox stream to empty (${left} of ${accepted.length} delivered events left in it)`,
        20_000,
      );
      expect(await admin.xLen(stream)).toBe(0);
    } finally {
      await admin.close();
    }
  });
});
