import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';

/**
 * `node --cpu-prof bench/dist/profile/at-once.profile.js [tool] [calls] [--default-logger]`: calls
 * one tool of the bench server in memory in a loop (default `move_now`, 20,000 calls), for a CPU
 * profile of it alone; with `--default-logger` through the default (winston) logger, as the bench.
 */
const [tool = 'move_now', callsArg = '20000'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const calls = Number(callsArg);
const defaultLogger = process.argv.includes('--default-logger');
const ARGS: Record<string, Record<string, unknown>> = {
  move_now: { distance_m: 2 },
  echo: { text: 'hello robot', count: 3 },
  plan: { tags: ['a', 'b'], waypoints: [{ x: 1, y: 2 }] },
};
const app = bootstrap(BenchServer, {
  eventTransport: new AckEventTransport(),
  env: {},
  ...(defaultLogger ? {} : { logger: silentLogger }),
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await app.connect(serverSide);
const client = new Client({ name: 'profile', version: '1.0.0' });
await client.connect(clientSide);
const started = performance.now();
for (let i = 0; i < calls; i += 1) {
  await client.callTool({ name: tool, arguments: ARGS[tool] ?? {} });
  if (i % 1000 === 999) await app.poster.flush(10_000);
}
const us = ((performance.now() - started) * 1000) / calls;
process.stderr.write(`${tool}: ${us.toFixed(1)} us per call\n`);
await client.close();
await app.close({ timeoutMs: 1000 });
