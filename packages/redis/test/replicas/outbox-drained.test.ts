import { describe, expect, it } from '@jest/globals';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { until, waitFor } from '../../../../test/support/until.js';
import { commandCalls, connectAdmin } from '../redis-test.helpers.js';
import {
  connectClient,
  privateStoreWithReceiver,
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

  it('costs one script per event: its state write and its append together', async () => {
    // a Redis of this test's own: its command counts are this replica's alone
    const { redis, receiver, callbackUrl } = await privateStoreWithReceiver(resources);
    const replica = await startReplica(resources, {
      prefix,
      callbackUrl,
      env: { PROGRESS: String(PROGRESS), RMK_STORE: redis.url },
    });
    const client = await connectClient(resources, replica.url);
    // the first start reserves a batch of ids; its one event loads the scripts (EVAL once each)
    const held = await startTask(client, 'hold');
    const admin = await connectAdmin(redis.url);
    resources.onCleanup(() => admin.close());
    const stream = `${prefix}outbox:{burst}`;
    await waitFor('the progress of hold', () => receiver.events.some((e) => e.task_id === held), 60_000);
    await until(async () => (await admin.xLen(stream)) === 0, 'the stream to empty');

    const before = await commandCalls(redis.url);
    const taskIds: string[] = [];
    for (let i = 0; i < 2; i += 1) taskIds.push(await startTask(client, 'burst'));
    await waitFor(
      'every task_done at the receiver',
      () => taskIds.every((id) => receiver.events.some((e) => e.task_id === id && e.type === 'task_done')),
      60_000,
      replica.exited,
    );
    await until(async () => (await admin.xLen(stream)) === 0, 'the stream to empty');
    const after = await commandCalls(redis.url);
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    const events = 2 * (PROGRESS + 1);
    // per event: one script writing the task's state and appending the event, which also removes
    // the events delivered meanwhile; a removal no append carried within 5 ms goes as a script of
    // its own, with the others waiting (was three: a put, then the append, then the removal; then
    // two: the removal always on its own); per task a few more: its start and its end, lease
    // renewals. That removals ride along is pinned, command by command, by outbox-removals.test.ts
    expect(delta('evalsha')).toBeGreaterThanOrEqual(events);
    expect(delta('evalsha')).toBeLessThanOrEqual(2 * events + 12);
    expect(delta('eval')).toBe(0);
  });
});
