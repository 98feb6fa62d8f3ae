import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { exitOf } from '../../../../test/support/processes.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { until, waitFor } from '../../../../test/support/until.js';
import { connectAdmin } from '../redis-test.helpers.js';
import {
  connectClient,
  REPLICA_SECRET,
  replicaSuite,
  startReplica,
  startReplicas,
  startTask,
} from './store-replicas.helpers.js';

/** A lease a loaded CI machine's replica renews in time (under 1 s, a stall fences it: issue 27). */
const LEASE_MS = '3000';
type Admin = Awaited<ReturnType<typeof connectAdmin>>;

/**
 * Writes an outbox entry as someone with Redis write access but not the event secret would: a
 * `task_done` of `taskId` with a forged payload (copied from a real event's shape), read into the
 * pending list of a consumer that never existed, so a live replica takes it over once idle. `mac`:
 * a made-up MAC field, or none (the entry format before store MACs).
 */
async function forgeEntry(
  admin: Admin,
  stream: string,
  template: Record<string, unknown>,
  mac: string | undefined,
): Promise<string> {
  const eventId = randomUUID();
  const body = JSON.stringify({
    ...template,
    event_id: eventId,
    type: 'task_done',
    seq: Number(template.seq) + 7,
    payload: { result: { forged: true } },
  });
  const fields: Record<string, string> = {
    e: eventId,
    t: String(template.task_id),
    s: String(Number(template.seq) + 7),
    p: String(Date.now()),
    n: String(body.length),
    b: body,
    ...(mac !== undefined ? { m: mac } : {}),
  };
  await admin.xAdd(stream, '*', fields);
  await admin.xReadGroup('posters', 'ghost-replica', { key: stream, id: '>' }, { COUNT: 10 });
  return eventId;
}

describe('store contents written without the event secret (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();
  const stream = `${prefix}outbox:{burst}`;

  it('a forged or pre-MAC outbox entry is never delivered (dropped, logged); authentic taken-over events still are', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    receiver.down = true; // A's events wait in the outbox
    const env = { RMK_STORE_LEASE_MS: LEASE_MS };
    const [a, b] = await startReplicas(resources, { prefix, callbackUrl, env }, [
      { RMK_REPLICA_ID: 'robot-a' },
      { RMK_REPLICA_ID: 'robot-b' },
    ]);
    const taskId = await startTask(await connectClient(resources, a.url), 'hold');
    const tried = await waitFor(
      "A's progress event refused by the receiver",
      () => receiver.refused.find((e) => e.task_id === taskId),
      60_000,
      a.exited,
    );
    const admin = await connectAdmin();
    resources.onCleanup(() => admin.close());
    await until(async () => (await admin.xLen(stream)) >= 1, "A's event in the outbox");
    const template = JSON.parse(JSON.stringify(tried)) as Record<string, unknown>;
    const forged = await forgeEntry(admin, stream, template, 'ab'.repeat(32));
    const preMac = await forgeEntry(admin, stream, template, undefined);

    a.child.kill('SIGKILL');
    await exitOf(a.child);
    receiver.down = false;
    // B takes over A's authentic event and fails the task REPLICA_LOST; both arrive signed
    await waitFor(
      "A's progress event and B's REPLICA_LOST task_failed, delivered by B",
      () =>
        receiver.received.some((r) => r.verified && r.event.event_id === tried.event_id) &&
        receiver.received.some(
          (r) => r.verified && r.event.task_id === taskId && r.event.type === 'task_failed',
        ),
      120_000,
      b.exited,
    );
    // whichever replica took them over (A before it died, or B) logged both as refused
    // (or, without MACs, delivered them)
    const logs = (): string => a.stderr() + b.stderr();
    const handled = (id: string, reason: string): boolean =>
      new RegExp(`"reason":"${reason}"`).test(logs()) || receiver.events.some((e) => e.event_id === id);
    await waitFor(
      'both forged entries refused or delivered',
      () => handled(forged, 'forged') && handled(preMac, 'unsigned'),
      60_000,
      b.exited,
    );
    const ids = receiver.received.map((r) => r.event.event_id);
    expect(ids).not.toContain(forged);
    expect(ids).not.toContain(preMac);
    expect(logs()).toMatch(/outbox entry without a valid MAC/);
    await until(async () => (await admin.xLen(stream)) === 0, 'the refused entries removed from the stream');
    expect(receiver.events.filter((e) => e.task_id === taskId && e.type === 'task_done')).toEqual([]);
  }, 240_000);

  it('a fake running record of a replica that never existed gets no REPLICA_LOST event and is not answered', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const replica = await startReplica(resources, {
      prefix,
      callbackUrl,
      env: { RMK_STORE_LEASE_MS: LEASE_MS, RMK_REPLICA_ID: 'robot-a' },
    });
    const client = await connectClient(resources, replica.url);
    const realId = await startTask(client, 'hold');
    const admin = await connectAdmin();
    resources.onCleanup(() => admin.close());
    // a real record's shape (without its MAC, which needs the secret), under another id and owner
    const real = JSON.parse((await admin.get(`${prefix}task:${realId}`)) ?? '{}') as Record<string, unknown>;
    delete real.mac;
    const fakeId = 'fake-0a0b0c';
    const task = { ...(real.task as Record<string, unknown>), task_id: fakeId, state: 'running' };
    await admin.set(`${prefix}task:${fakeId}`, JSON.stringify({ ...real, owner: 'ghost', task }));
    await admin.zAdd(`${prefix}scope:${String(real.scope)}`, { score: Date.now(), value: fakeId });
    await admin.sAdd(`${prefix}owned:ghost`, fakeId);
    await admin.sAdd(`${prefix}replicas`, 'ghost');

    await waitFor(
      'the replica refusing the fake record (or, without MACs, failing it REPLICA_LOST)',
      () =>
        /task record without a valid MAC[^\n]*fake-0a0b0c/.test(replica.stderr()) ||
        receiver.events.some((e) => e.task_id === fakeId),
      60_000,
      replica.exited,
    );
    expect(receiver.events.filter((e) => e.task_id === fakeId)).toEqual([]);
    await until(async () => (await admin.sCard(`${prefix}owned:ghost`)) === 0, 'the ghost owner swept');
    const answer = await client.callTool({ name: 'get_task', arguments: { task_id: fakeId } });
    expect(JSON.stringify(answer)).not.toMatch(/"state":"running"/);
    expect(receiver.events.filter((e) => e.task_id === fakeId)).toEqual([]);
    expect(replica.stderr()).not.toMatch(/fake-0a0b0c failed: its replica ghost was lost/);
  }, 240_000);
});
