import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, Tool } from '@robot-mcp-kit/server';

/** A tool that reports the span active where it runs. */
@CapabilityServer({ name: 'ctx', version: '1.0.0' })
class ContextServer {
  @Tool({ name: 'probe', description: 'The active span' })
  probe(): string {
    const span = trace.getActiveSpan();
    return span === undefined ? 'no span' : `span recording=${span.isRecording()}`;
  }
}

// A context manager but no tracer provider: the API's tracer hands out non-recording spans with an
// invalid context, which the kit does not make active (nothing could read them).
const manager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
});
afterAll(() => {
  manager.disable();
  context.disable();
});

describe('telemetry with a context manager and no tracer provider', () => {
  it('makes no span active for the handler (a no-op span is not put into the context)', async () => {
    const app = bootstrap(ContextServer, {
      env: {},
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.connect(serverSide);
    const client = new Client({ name: 'ctx', version: '1' });
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'probe', arguments: {} });
      expect(result.isError).toBeUndefined();
      const [first] = result.content as { type: string; text: string }[];
      expect(first?.text).toBe('no span');
    } finally {
      await client.close();
      await app.close({ timeoutMs: 500 });
    }
  });
});
