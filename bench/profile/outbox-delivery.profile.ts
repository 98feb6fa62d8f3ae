import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from 'redis';
import { LoopbackReceiver } from '../fixtures/receiver.client.js';
import {
  BENCH_REDIS_URL,
  type BenchApp,
  benchKeyPrefix,
  deleteKeys,
  startBenchApp,
} from '../fixtures/store-apps.fixture.js';

/**
 * `node [--cpu-prof] bench/dist/profile/outbox-delivery.profile.js [events] [rounds] [--memory]`:
 * the `store-event-delivery` scenario alone — `report` tools/calls of `events` progress events each
 * (default 300, 10 rounds) through a real server with the Redis store and outbox (`--memory`: the
 * in-memory poster), delivered signed to a loopback receiver. Prints the process CPU time per
 * delivered event (receiver thread included: the same on both sides) and, over one round watched
 * through MONITOR, the Redis commands of the run's keys per event, by name.
 */
const args = process.argv.slice(2);
const [eventsArg = '300', roundsArg = '10'] = args.filter((a) => !a.startsWith('--'));
const events = Number(eventsArg);
const rounds = Number(roundsArg);
const memory = args.includes('--memory');
const SECRET = 'bench-secret-0123456789abcdef012345';

async function round(kit: BenchApp): Promise<number> {
  const before = kit.app.poster.stats.delivered;
  const result = (await kit.client.callTool({
    name: 'report',
    arguments: { count: events },
  })) as CallToolResult;
  if (result.isError) throw new Error(`report failed: ${JSON.stringify(result).slice(0, 300)}`);
  const deadline = Date.now() + 120_000;
  while (kit.app.taskManager.runningCount > 0) {
    if (Date.now() > deadline) throw new Error('the task did not end in 120 s');
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
  if (!(await kit.app.poster.flush(120_000))) throw new Error('no flush in 120 s');
  return kit.app.poster.stats.delivered - before;
}

/** The commands naming `prefix` sent during one round, by command name (EVALSHA counted as one). */
async function watchedRound(kit: BenchApp, prefix: string): Promise<Map<string, number>> {
  const monitor = createClient({ url: BENCH_REDIS_URL });
  await monitor.connect();
  const counts = new Map<string, number>();
  await monitor.monitor((line: string) => {
    if (!line.includes(prefix)) return;
    const name = /"([A-Za-z]+)"/.exec(line)?.[1]?.toUpperCase() ?? '?';
    if (line.includes('lua]')) return; // inside a script: not a round trip
    counts.set(name, (counts.get(name) ?? 0) + 1);
  });
  await round(kit);
  await new Promise<void>((resolve) => setTimeout(resolve, 300));
  await monitor.disconnect();
  return counts;
}

const prefix = benchKeyPrefix();
const receiver = await LoopbackReceiver.start(SECRET, 2, 5);
const kit = await startBenchApp({
  ...(memory ? {} : { store: { url: BENCH_REDIS_URL, keyPrefix: prefix } }),
  replicaId: 'profile-d0',
  events: { url: `${receiver.baseUrl}/fast`, secret: SECRET },
});
try {
  await round(kit); // warm-up
  const cpu = process.cpuUsage();
  const started = performance.now();
  let delivered = 0;
  for (let r = 0; r < rounds; r += 1) delivered += await round(kit);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - started;
  const usPerEvent = (used.user + used.system) / delivered;
  process.stdout.write(
    `${memory ? 'memory' : 'outbox'}: ${delivered} events, CPU ${usPerEvent.toFixed(1)} us/event ` +
      `(user ${(used.user / delivered).toFixed(1)}, system ${(used.system / delivered).toFixed(1)}), ` +
      `wall ${((wallMs * 1000) / delivered).toFixed(1)} us/event\n`,
  );
  if (!memory) {
    const counts = await watchedRound(kit, prefix);
    const perEvent = [...counts].map(([name, n]) => `${name} ${(n / events).toFixed(2)}`).join(', ');
    process.stdout.write(`outbox round trips per event (one round of ${events}): ${perEvent}\n`);
  }
} finally {
  await kit.close();
  await receiver.close();
  if (!memory) await deleteKeys(BENCH_REDIS_URL, prefix);
}
