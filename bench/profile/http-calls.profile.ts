import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { listenSdkHttp } from '../fixtures/sdk-baseline.server.js';
import { createDtoSdkServer } from '../fixtures/sdk-dto-tools.server.js';

/**
 * `node --no-warnings --cpu-prof bench/dist/profile/http-calls.profile.js [tool] [calls] [--sdk]`:
 * calls one tool of the bench server over streamable HTTP on loopback in a loop (default `echo`,
 * 5,000 calls), for a CPU profile of the kit's HTTP path; with `--sdk` the hand-written baseline
 * (class-validator DTOs on the SDK's own server) instead. `--no-warnings`: the SDK client's shared
 * AbortSignal prints a listener warning after 1,500 calls (see bench/run.ts).
 */
const [tool = 'echo', callsArg = '5000'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const calls = Number(callsArg);
const sdkSide = process.argv.includes('--sdk');
const ARGS: Record<string, Record<string, unknown>> = {
  echo: { text: 'hello robot', count: 3 },
  move: { distance_m: 2 },
};
const server = new BenchServer();
const app = bootstrap(BenchServer, {
  instance: server,
  eventTransport: new AckEventTransport(),
  env: {},
  logger: silentLogger,
});
const sdk = sdkSide ? await listenSdkHttp(createDtoSdkServer) : undefined;
const url = sdk
  ? sdk.url
  : ((await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 })).url ?? '');
const client = new Client({ name: 'profile', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const cpu = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < calls; i += 1) {
  await client.callTool({ name: tool, arguments: ARGS[tool] ?? {} });
  if (i % 500 === 499) {
    server.releaseAll();
    await app.poster.flush(10_000);
  }
}
const us = ((performance.now() - started) * 1000) / calls;
const used = process.cpuUsage(cpu);
process.stderr.write(
  `${sdkSide ? 'sdk' : 'kit'} ${tool}: ${us.toFixed(1)} us per call, cpu ${((used.user + used.system) / calls).toFixed(1)} us per call\n`,
);
await client.close();
await sdk?.close();
server.releaseAll();
await app.close({ timeoutMs: 1000 });
