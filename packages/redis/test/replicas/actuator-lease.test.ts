import { beforeAll, describe, expect, it } from '@jest/globals';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Resources } from '../../../../test/support/processes.js';
import { SignedReceiver } from '../../../../test/support/signed-receiver.js';
import { until } from '../../../../test/support/until.js';
import { connectAdmin } from '../redis-test.helpers.js';
import {
  connectClient,
  REPLICA_SECRET,
  type Replica,
  replicaSuite,
  sharedReplicaSuite,
  START_LIMIT_MS,
  startReplicas,
} from './store-replicas.helpers.js';

const LEASE_MS = '3000';
const ROUNDS = 6;

interface MoveReply {
  readonly isError: boolean;
  readonly task_id?: string;
  readonly error_code?: string;
  readonly message?: string;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls the fixture's mover (`move`: actuates, maxConcurrent 1; `navigate`: the same, preempting). */
async function move(client: Client, tool = 'move'): Promise<MoveReply> {
  const reply = await callTool(client, tool);
  const structured = (reply.structuredContent ?? {}) as Omit<MoveReply, 'isError'>;
  return { isError: reply.isError === true, ...structured };
}

async function stateOf(client: Client, taskId: string): Promise<string | undefined> {
  const reply = await callTool(client, 'get_task', { task_id: taskId });
  return (reply.structuredContent as { state?: string } | undefined)?.state;
}

/** The `tool` tasks the store knows as running (every replica's), read through `client`. */
async function runningMoves(client: Client, tool = 'move'): Promise<string[]> {
  const reply = await callTool(client, 'list_tasks', { states: ['running'] });
  const text = (reply.content as { text: string }[])[0]!.text;
  const tasks = (JSON.parse(text) as { tasks: { task_id: string; tool: string; state: string }[] }).tasks;
  return tasks.filter((t) => t.tool === tool && t.state === 'running').map((t) => t.task_id);
}

/** Two replicas, robot-a and robot-b, sharing the store under `prefix`, and a client of each. */
async function twoReplicas(bag: Resources, prefix: string): Promise<[Replica, Replica, Client, Client]> {
  const receiver = new SignedReceiver(REPLICA_SECRET);
  const callbackUrl = await receiver.start();
  bag.onCleanup(() => receiver.close());
  const env = { RMK_STORE_LEASE_MS: LEASE_MS, TICK_MS: '50' };
  const [a, b] = await startReplicas(bag, { prefix, callbackUrl, env }, [
    { RMK_REPLICA_ID: 'robot-a' },
    { RMK_REPLICA_ID: 'robot-b' },
  ]);
  const [onA, onB] = await Promise.all([connectClient(bag, a.url), connectClient(bag, b.url)]);
  return [a, b, onA, onB];
}

describe('one mover at a time across replicas, and the e-stop of every replica (real processes, real Redis)', () => {
  // These three share two replicas: none kills one, each leaves the movers' lease free or takes it
  // itself last (the e-stop test runs last and re-arms), and a log is read from the test's start on.
  const { resources, shared, prefix } = sharedReplicaSuite();
  let pair: [Replica, Replica, Client, Client];
  beforeAll(async () => {
    pair = await twoReplicas(shared, prefix);
  }, START_LIMIT_MS);

  it('two replicas racing to start a drive: exactly one runs each time, the other is refused ACTUATOR_BUSY', async () => {
    const [, , onA, onB] = pair;
    const admin = await connectAdmin();
    resources.onCleanup(() => admin.close());
    for (let round = 1; round <= ROUNDS; round += 1) {
      const replies = await Promise.all([move(onA), move(onB)]);
      const started = replies.filter((r) => !r.isError);
      const refused = replies.filter((r) => r.isError);
      expect(started).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const winner = started[0]!.task_id!;
      expect(refused[0]).toMatchObject({ error_code: 'ACTUATOR_BUSY' });
      expect(refused[0]!.message).toContain(winner);
      // nothing started for the loser: the only running mover of the fleet is the winner
      expect(await runningMoves(onA)).toEqual([winner]);
      expect(await runningMoves(onB)).toEqual([winner]);
      // cancel through the other replica's client (it reaches the owner), and wait for the release
      const loser = replies[0]!.isError ? onA : onB;
      expect((await callTool(loser, 'cancel_task', { task_id: winner })).isError).toBeFalsy();
      await until(
        async () => (await admin.exists(`${prefix}actuator:move:0`)) === 0,
        'the lease released',
        60_000,
      );
    }
  }, 240_000);

  it('preempt across replicas: a navigate on B cancels the one running on A (its body sees the abort), then runs', async () => {
    const [a, , onA, onB] = pair;
    const logged = a.stderr().length;
    const first = await move(onA, 'navigate');
    expect(first.task_id).toEqual(expect.any(String));
    const second = await move(onB, 'navigate');
    expect(second).toMatchObject({ isError: false, task_id: expect.any(String) });
    expect(second.task_id).not.toBe(first.task_id);
    await until(
      async () => (await stateOf(onA, first.task_id!)) === 'cancelled',
      "A's navigate cancelled",
      60_000,
    );
    await until(
      () => /navigate body aborted/.test(a.stderr().slice(logged)),
      "A's body saw the abort",
      60_000,
    );
    expect(await stateOf(onB, second.task_id!)).toBe('running');
    // exactly one runs across both replicas: B's
    expect(await runningMoves(onA, 'navigate')).toEqual([second.task_id]);
    expect(await runningMoves(onB, 'navigate')).toEqual([second.task_id]);
    // and it preempts the other way round too
    const third = await move(onA, 'navigate');
    expect(third).toMatchObject({ isError: false, task_id: expect.any(String) });
    await until(
      async () => (await stateOf(onB, second.task_id!)) === 'cancelled',
      "B's navigate cancelled",
      60_000,
    );
    expect(await runningMoves(onB, 'navigate')).toEqual([third.task_id]);
  }, 240_000);

  it('an e-stop on replica A stops the mover running on replica B, and refuses movers on both until re-armed', async () => {
    const [, b, onA, onB] = pair;
    const logged = b.stderr().length;
    const running = await move(onB);
    expect(running.task_id).toEqual(expect.any(String));

    expect((await callTool(onA, 'estop')).isError).toBeFalsy();
    await until(
      async () => (await stateOf(onB, running.task_id!)) === 'cancelled',
      "B's mover cancelled",
      60_000,
    );
    await until(() => /move body aborted/.test(b.stderr().slice(logged)), "B's body saw the abort", 60_000);
    for (const client of [onA, onB]) {
      expect(await move(client)).toMatchObject({ isError: true, error_code: 'ESTOPPED' });
    }
    expect((await callTool(onB, 'rearm')).isError).toBeFalsy();
    const again = await move(onA);
    expect(again.task_id).toEqual(expect.any(String));
  }, 240_000);
});

describe('a mover holder killed with kill -9 (real processes, real Redis)', () => {
  const { resources, prefix } = replicaSuite();

  it('a holder killed with kill -9: its lease is taken over once it expired, never before', async () => {
    const [a, b, onA, onB] = await twoReplicas(resources, prefix);
    const held = await move(onA);
    expect(held.task_id).toEqual(expect.any(String));
    const busy = await move(onB);
    expect(busy).toMatchObject({ isError: true, error_code: 'ACTUATOR_BUSY' });
    expect(busy.message).toContain(held.task_id);

    a.child.kill('SIGKILL');
    let next: MoveReply | undefined;
    await until(
      async () => {
        const reply = await move(onB);
        if (!reply.isError) next = reply;
        else expect(reply.error_code).toBe('ACTUATOR_BUSY'); // held until A's lease expired
        return next;
      },
      'B starting a mover after A died',
      60_000,
    );
    expect(await stateOf(onB, next!.task_id!)).toBe('running');
    expect(b.stderr()).toMatch(/actuator lease taken over from a lost replica/);
  }, 240_000);
});
