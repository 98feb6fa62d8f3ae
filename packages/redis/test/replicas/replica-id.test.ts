import { describe, expect, it } from '@jest/globals';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exitOf } from '../../../../test/support/processes.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { waitFor } from '../../../../test/support/until.js';
import {
  connectClient,
  REPLICA_SECRET,
  replicaSuite,
  startReplica,
  startTask,
} from './store-replicas.helpers.js';

/** Short leases: a lost replica is found in about a second (the waits below are safety nets). */
/** A lease a loaded CI machine's replica renews in time (under 1 s, a stall fences it: issue 27). */
const LEASE_MS = '3000';

describe('RMK_REPLICA_ID of replicas sharing a store (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('a second live replica with the same id is refused; logs and REPLICA_LOST name the id given', async () => {
    const receiver = new SignedReceiver(REPLICA_SECRET);
    const callbackUrl = await receiver.start();
    resources.onCleanup(() => receiver.close());
    const env = { RMK_STORE_LEASE_MS: LEASE_MS };
    const a = await startReplica(resources, {
      prefix,
      callbackUrl,
      env: { ...env, RMK_REPLICA_ID: 'robot-a' },
    });
    expect(a.stderr()).toMatch(/"message":"task store connected"[^\n]*"replica":"robot-a"/);

    // the same id again while robot-a lives: the start fails, saying why and for how long
    await expect(
      startReplica(resources, { prefix, callbackUrl, env: { ...env, RMK_REPLICA_ID: 'robot-a' } }),
    ).rejects.toThrow(/RMK_REPLICA_ID: "robot-a" is in use by a live replica \(its lease runs \d+ ms more\)/);

    const c = await startReplica(resources, {
      prefix,
      callbackUrl,
      env: { ...env, RMK_REPLICA_ID: 'robot-c' },
    });
    const taskId = await startTask(await connectClient(resources, a.url), 'hold');
    const clientC = await connectClient(resources, c.url);
    a.child.kill('SIGKILL');
    await exitOf(a.child);
    const failed = await waitFor(
      `task ${taskId} failed by robot-c`,
      async () => {
        const reply = (await clientC.callTool({
          name: 'get_task',
          arguments: { task_id: taskId },
        })) as CallToolResult;
        const task = reply.structuredContent as {
          state: string;
          failure?: { error_code: string; message: string };
        };
        return task.state === 'failed' ? task : undefined;
      },
      60_000,
      c.exited,
    );
    expect(failed.failure?.error_code).toBe('REPLICA_LOST');
    expect(failed.failure?.message).toContain('(robot-a)');
    // the record is failed first, the line logged after the dead owner's events are taken over
    await waitFor(
      'robot-c logging the loss',
      () => c.stderr().includes('its replica robot-a was lost'),
      30_000,
      c.exited,
    );
  }, 240_000);
});
