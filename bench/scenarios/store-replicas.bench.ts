import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type StoreRun } from '../fixtures/store-apps.fixture.js';
import { startMove, startsSide } from '../fixtures/task-starts.side.js';
import { interleave } from '../harness/ab-runner.js';
import { BenchCheckError, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';
import { summarize } from '../harness/stats.js';

/** A replica child process (store-replica.child.ts) and an SDK client on its streamable HTTP. */
interface ChildReplica {
  readonly client: Client;
  release(): Promise<void>;
  close(): Promise<void>;
}

/** The next IPC message of `kind` from `child`, or a BenchCheckError after `timeoutMs`. */
async function nextMessage<T extends { kind: string }>(
  child: ChildProcess,
  kind: string,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new BenchCheckError(`replica child sent no "${kind}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: T) => {
      if (message.kind !== kind) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
  });
}

async function spawnReplica(run: StoreRun, replicaId: string): Promise<ChildReplica> {
  const child = fork(
    new URL('../fixtures/store-replica.child.js', import.meta.url),
    [run.store.url, run.store.keyPrefix, replicaId],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const exited = once(child, 'exit');
  const ready = await nextMessage<{ kind: string; url: string }>(child, 'ready', 30_000);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(ready.url)));
  return {
    client,
    async release() {
      const answered = nextMessage<{ kind: string; flushed: boolean }>(child, 'released', 30_000);
      child.send({ kind: 'release' });
      if (!(await answered).flushed) throw new BenchCheckError(`${replicaId}: task events did not flush`);
    },
    async close() {
      await client.close();
      child.send({ kind: 'close' });
      await exited;
    },
  };
}

/**
 * Task starts over 3 replica processes sharing one Redis vs 1 replica process, each over
 * streamable HTTP on loopback (8 in flight from the bench process, round-robin).
 */
export async function childReplicas(run: StoreRun): Promise<BenchRow> {
  const { ctx } = run;
  const total = sized(ctx, 30, 400);
  const inflight = 8;
  ctx.log(`store: ${total} task starts (${inflight} in flight), 3 replica processes vs 1, HTTP`);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 2 }, { warmupRounds: 2, rounds: 10 });
  const replicas: ChildReplica[] = [];
  try {
    const spawned = await Promise.allSettled(
      ['bench-p1', 'bench-p2', 'bench-p3'].map((id) => spawnReplica(run, id)),
    );
    for (const result of spawned) if (result.status === 'fulfilled') replicas.push(result.value);
    const failed = spawned.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    for (const replica of replicas) await startMove(replica.client);
    const clients = replicas.map((r) => r.client);
    const releaseAll = async (of: readonly ChildReplica[]) =>
      void (await Promise.all(of.map((r) => r.release())));
    const s = await interleave(
      startsSide('3 processes', clients, { total, inflight }, () => releaseAll(replicas)),
      startsSide('1 process', clients.slice(0, 1), { total, inflight }, () =>
        releaseAll(replicas.slice(0, 1)),
      ),
      plan,
    );
    const rate = (samples: readonly number[]) => Math.round(1e6 / summarize(samples).median);
    return makeRow(
      {
        id: 'store-replica-processes-3-vs-1',
        scenario: `task starts over 3 replica processes sharing one Redis, HTTP (${inflight} in flight)`,
        baseline: '1 replica process on the same Redis',
        unit: 'us',
        notes:
          `informational: µs per start under concurrency; ${rate(s.subject)} vs ${rate(s.baseline)} starts/s; ` +
          'cpu ratio counts the bench process (the client) only',
      },
      s.subject,
      s.baseline,
      s.cpu,
    );
  } finally {
    for (const replica of replicas) await replica.close();
  }
}
