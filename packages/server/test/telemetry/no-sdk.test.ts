import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { trace } from '@opentelemetry/api';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, Tool } from '@robot-mcp-kit/server';

/** A tool that reports whether it runs inside a recording span. */
@CapabilityServer({ name: 'plain', version: '1.0.0' })
class PlainServer {
  @Tool({ name: 'recording', description: 'Whether the active span records' })
  recording(): string {
    const span = trace.getActiveSpan();
    return span === undefined ? 'no span' : `span recording=${span.isRecording()}`;
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

describe('telemetry with no OpenTelemetry SDK registered', () => {
  it('serves calls as before and records nothing (no span reaches the tool body)', async () => {
    const app = bootstrap(PlainServer, {
      env: {},
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
    });
    const { url } = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
    cleanups.push(() => app.close({ timeoutMs: 500 }));
    const client = new Client({ name: 'plain', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    cleanups.push(() => client.close());
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const result = await client.callTool({ name: 'recording', arguments: {}, _meta: { traceparent } });
    expect(result.isError).toBeUndefined();
    // The API's no-op context manager keeps no active span; the no-op tracer's spans never record.
    expect(result.content).toEqual([{ type: 'text', text: 'no span' }]);
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
  });
});
