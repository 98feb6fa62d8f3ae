import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { BenchServer } from '../fixtures/bench.server.js';
import { listenSdkHttp } from '../fixtures/sdk-baseline.server.js';

// The server side of the idle-session memory rows (issue 28), alone in its process so that the
// clients' objects are not in its heap: `kit` (BenchServer over the kit's streamable HTTP) or
// `sdk` (a hand-written SDK server, same transport). It sends its URL, then answers every
// `measure` message with its heap and RSS after forced collections, until `exit`.

const MAX_SESSIONS = '100000';
const gc = (globalThis as { gc?: () => void }).gc;

async function start(kind: string): Promise<{ url: string; close(): Promise<void> }> {
  if (kind === 'sdk') return listenSdkHttp();
  process.env.RMK_MAX_SESSIONS = MAX_SESSIONS;
  const app = bootstrap(BenchServer, {
    eventTransport: new AckEventTransport(),
    env: { RMK_MAX_SESSIONS: MAX_SESSIONS },
    logger: silentLogger,
  });
  const { url } = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  return { url: url ?? '', close: async () => void (await app.close({ timeoutMs: 1000 })) };
}

/** Heap and RSS after collections, once the heap stopped shrinking. */
async function measure(): Promise<{ heap: number; rss: number }> {
  let heap = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i += 1) {
    gc?.();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = process.memoryUsage().heapUsed;
    if (now >= heap) break;
    heap = now;
  }
  return { heap, rss: process.memoryUsage().rss };
}

const server = await start(process.argv[2] ?? 'kit');
process.on('message', (message) => {
  if (message === 'measure') void measure().then((m) => process.send?.(m));
  if (message === 'exit') void server.close().then(() => process.exit(0));
});
process.send?.({ url: server.url });
