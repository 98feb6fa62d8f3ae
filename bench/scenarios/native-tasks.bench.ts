import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { createSdkTaskServer } from '../fixtures/sdk-tasks.server.js';
import { interleave, perOpSide } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

async function linkedClient(connect: (t: InMemoryTransport) => Promise<unknown>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** One task-augmented tools/call; checks it created a working task. */
async function createTask(client: Client): Promise<void> {
  const result = await client.request(
    { method: 'tools/call', params: { name: 'move', arguments: { distance_m: 2 }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  if (result.task.status !== 'working') {
    throw new BenchCheckError(`tools/call with task answered ${JSON.stringify(result).slice(0, 300)}`);
  }
}

/** Native task creation (tools/call with `task`, in memory): the kit vs the SDK's own task support. */
export async function nativeTaskBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('native task create (tools/call with task), in-memory');
  const plan = sized(
    ctx,
    { warmupRounds: 1, rounds: 4, ops: 100 },
    { warmupRounds: 3, rounds: 20, ops: 300 },
  );
  const server = new BenchServer();
  const app = bootstrap(BenchServer, {
    instance: server,
    eventTransport: new AckEventTransport(),
    env: {},
    logger: silentLogger,
  });
  const store = new InMemoryTaskStore();
  const kit = await linkedClient((t) => app.connect(t));
  const sdk = await linkedClient((t) => createSdkTaskServer(store).connect(t));
  await createTask(kit);
  await createTask(sdk);
  const settle = async () => {
    server.releaseAll();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!(await app.poster.flush(10_000))) throw new BenchCheckError('task events did not flush in 10 s');
  };
  const s = await interleave(
    perOpSide('kit', plan.ops, () => createTask(kit), settle),
    perOpSide('sdk', plan.ops, () => createTask(sdk)),
    plan,
  );
  await kit.close();
  await sdk.close();
  await settle();
  await app.close({ timeoutMs: 1000 });
  store.cleanup();
  return [
    makeRow(
      {
        id: 'native-task-create-inmemory',
        scenario: 'native task create (tools/call with task), in-memory',
        baseline: "SDK's experimental tasks (registerToolTask + InMemoryTaskStore)",
        unit: 'us',
        target: { op: '<=', value: 1.3 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  ];
}
