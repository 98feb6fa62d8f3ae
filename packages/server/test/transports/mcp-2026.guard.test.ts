import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { RoverServer } from '../fixtures/rover.server.js';

// The kit's JSON guard is one message stage run below both SDK generations: a 2026-07-28
// exchange is refused exactly as a 2025 session's request is (before the v2 SDK's schemas rebuild
// the params, which silently dropped a top-level "__proto__" argument and ran the tool).
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(): Promise<string> {
  const app = bootstrap(RoverServer, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  return info.url!;
}

const hostile = (): Record<string, unknown> =>
  JSON.parse('{"text": "hi", "__proto__": {"polluted": true}}') as Record<string, unknown>;

describe('the JSON guard on both MCP generations', () => {
  it('refuses a __proto__ argument with the same -32602 on 2026-07-28 and 2025-11-25, and keeps serving', async () => {
    const url = await serve();
    const modern = new ModernClient(
      { name: 'modern', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new ModernTransport(new URL(url)));
    cleanups.push(() => modern.close());
    const legacy = new Client({ name: 'legacy', version: '1' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => legacy.close());

    const refusal = /params\.arguments\.__proto__: the key "__proto__" is not allowed/;
    await expect(modern.callTool({ name: 'echo', arguments: hostile() })).rejects.toThrow(refusal);
    await expect(legacy.callTool({ name: 'echo', arguments: hostile() })).rejects.toThrow(refusal);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const fine = await modern.callTool({ name: 'echo', arguments: { text: 'still here' } });
    expect(JSON.stringify(fine)).toContain('still here');
  });
});
