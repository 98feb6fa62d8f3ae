import { describe, expect, it } from '@jest/globals';
import { exitOf } from '../../../../test/support/processes.js';
import { until, waitFor } from '../../../../test/support/until.js';
import { connectAdmin } from '../redis-test.helpers.js';
import { SkewTolerantReceiver } from './event-receiver.helpers.js';
import { connectClient, replicaSuite, startReplicas, startTask } from './store-replicas.helpers.js';

/** A lease a loaded CI machine's replica renews in time (under 1 s, a stall fences it: issue 27). */
const LEASE_MS = '3000';
const TASKS = 3;
const PROGRESS = 5;

/**
 * Resets the idle time of every entry pending for consumer ARGV[2] (to that same consumer), in one
 * step: entries another replica claimed meanwhile are not touched. KEYS: stream. ARGV: group, consumer.
 */
const KEEP_FRESH = `
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 10000, ARGV[2])
local ids = {}
for _, entry in ipairs(pending) do ids[#ids + 1] = entry[1] end
if #ids > 0 then redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids)) end
return #ids`;

describe('take-over in order (real processes, kill -9, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it("the survivor's REPLICA_LOST task_failed reaches the app after every event the dead owner left, each task in seq order", async () => {
    const receiver = new SkewTolerantReceiver();
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    receiver.down = true; // A's events wait in its outbox
    const env = { RMK_STORE_LEASE_MS: LEASE_MS, HOLD_PROGRESS: String(PROGRESS) };
    const [a, b] = await startReplicas(resources, { prefix, callbackUrl, env }, [
      { RMK_REPLICA_ID: 'robot-a' },
      { RMK_REPLICA_ID: 'robot-b' },
    ]);
    const clientA = await connectClient(resources, a.url);
    const taskIds: string[] = [];
    for (let i = 0; i < TASKS; i += 1) taskIds.push(await startTask(clientA, 'hold'));
    const admin = await connectAdmin();
    resources.onCleanup(() => admin.close());
    // every progress event of every task durably written before A dies
    await until(
      async () => (await admin.xLen(`${prefix}outbox:{burst}`)) >= TASKS * PROGRESS,
      "A's events in the outbox",
      60_000,
    );
    // Keep A's pending events looking fresh (as if A had renewed them until its lease ran out), so
    // that B's sweep judges A lost before those events could be taken over as idle ones: without
    // the in-order take-over the failure is then queued first, every time, not only when the
    // sweep's timer happens to fire before the idle take-over's.
    const stream = `${prefix}outbox:{burst}`;
    const keepFresh = () => admin.eval(KEEP_FRESH, { keys: [stream], arguments: ['posters', 'robot-a'] });
    const freshenErrors: unknown[] = [];
    const freshener = setInterval(() => void keepFresh().catch((e: unknown) => freshenErrors.push(e)), 100);
    resources.onCleanup(async () => clearInterval(freshener));
    await keepFresh();
    a.child.kill('SIGKILL');
    await exitOf(a.child);

    const refusedBefore = receiver.refused.length;
    // B fails each task (logged before it posts the failure) and tries to deliver while the app is down
    await waitFor(
      'B failing every task REPLICA_LOST and trying to deliver',
      () =>
        taskIds.every((id) => b.stderr().includes(`task ${id} failed: its replica robot-a was lost`)) &&
        receiver.refused.length > refusedBefore,
      120_000,
      b.exited,
    );
    clearInterval(freshener);
    expect(freshenErrors).toEqual([]);
    receiver.down = false;
    await waitFor(
      'every task failed, delivered',
      () =>
        taskIds.every((id) => receiver.accepted.some((e) => e.task_id === id && e.type === 'task_failed')),
      120_000,
      b.exited,
    );
    for (const id of taskIds) {
      const firstArrivals: number[] = [];
      for (const e of receiver.accepted)
        if (e.task_id === id && !firstArrivals.includes(e.seq)) firstArrivals.push(e.seq);
      // 1..PROGRESS progress events, then the failure: never the failure first
      expect(firstArrivals).toEqual(Array.from({ length: PROGRESS + 1 }, (_, i) => i + 1));
    }
  }, 300_000);
});
