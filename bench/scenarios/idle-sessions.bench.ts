import { type ChildProcess, fork } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

// Issue 28: what an idle MCP session costs a server. The server runs alone in a child process
// (idle-sessions.child.ts); this process opens N sessions with the official SDK client over
// streamable HTTP (initialize, initialized, the client's own GET stream; no requests after) and
// asks the child for its heap and RSS after forced collections, before and after. Per round:
// (after - before) / N, for the kit and for a hand-written SDK server, rounds alternating.

interface Memory {
  heap: number;
  rss: number;
}

class ServerChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(kind: 'kit' | 'sdk'): Promise<ServerChild> {
    const child = fork(new URL('./idle-sessions.child.js', import.meta.url), [kind], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const { url } = await ServerChild.reply<{ url: string }>(child);
    return new ServerChild(child, url);
  }

  private static reply<T>(child: ChildProcess): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new BenchCheckError(`server child exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (message) => {
        child.off('exit', onExit);
        resolve(message as T);
      });
    });
  }

  async memory(): Promise<Memory> {
    const answer = ServerChild.reply<Memory>(this.child);
    this.child.send('measure');
    return answer;
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send('exit');
    await exited;
  }
}

/** Opens `count` sessions, 16 at a time; each is a connected SDK client left idle. */
async function openSessions(url: string, count: number): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < count; i += 16) {
    const batch = Array.from({ length: Math.min(16, count - i) }, async () => {
      const client = new Client({ name: 'idle-bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    });
    clients.push(...(await Promise.all(batch)));
  }
  return clients;
}

async function closeSessions(clients: readonly Client[]): Promise<void> {
  await Promise.all(
    clients.map(async (client) => {
      await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
      await client.close();
    }),
  );
}

/** One round on one server: bytes of heap and of RSS per session. */
async function round(server: ServerChild, count: number): Promise<Memory> {
  const before = await server.memory();
  const clients = await openSessions(server.url, count);
  const after = await server.memory();
  await closeSessions(clients);
  return { heap: (after.heap - before.heap) / count, rss: (after.rss - before.rss) / count };
}

/** Heap and RSS per idle session, kit vs a hand-written SDK server (informational rows). */
export async function idleSessionBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  const count = sized(ctx, 50, 300);
  const rounds = sized(ctx, 2, 6);
  ctx.log(`memory per idle MCP session: ${count} sessions x ${rounds} rounds, kit vs SDK server`);
  const kit = await ServerChild.start('kit');
  const sdk = await ServerChild.start('sdk');
  const samples = { kit: [] as Memory[], sdk: [] as Memory[] };
  try {
    await closeSessions(await openSessions(kit.url, 16)); // warm-up: code paths compiled, pools made
    await closeSessions(await openSessions(sdk.url, 16));
    for (let r = 0; r < rounds; r += 1) {
      const order = r % 2 === 0 ? (['kit', 'sdk'] as const) : (['sdk', 'kit'] as const);
      for (const side of order) samples[side].push(await round(side === 'kit' ? kit : sdk, count));
    }
  } finally {
    await kit.stop();
    await sdk.stop();
  }
  const KB = (values: Memory[], key: keyof Memory) => values.map((m) => m[key] / 1024);
  const spec = {
    scenario: `memory per idle MCP session (streamable HTTP, ${count} SDK clients, after GC)`,
    baseline: 'hand-written SDK server, same transport',
    unit: 'KB' as const,
  };
  return [
    makeRow(
      { ...spec, id: 'idle-session-heap', scenario: `heap ${spec.scenario}`, notes: 'informational' },
      KB(samples.kit, 'heap'),
      KB(samples.sdk, 'heap'),
    ),
    makeRow(
      { ...spec, id: 'idle-session-rss', scenario: `RSS ${spec.scenario}`, notes: 'informational' },
      KB(samples.kit, 'rss'),
      KB(samples.sdk, 'rss'),
    ),
  ];
}
