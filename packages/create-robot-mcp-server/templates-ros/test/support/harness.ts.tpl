import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { RoslibRosConnection } from '@robot-mcp-kit/ros';
import { type RosbridgeDouble, startRosbridgeDouble } from '@robot-mcp-kit/ros/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { InMemoryEventTransport, silentLogger } from '@robot-mcp-kit/server/testing';
import { plugins } from '../../src/plugins.js';
import { {{className}} } from '../../src/{{name}}.server.js';

/** The server in-process, reaching a rosbridge double (a simulated Nav2 robot) like a real robot. */
export interface Harness {
  readonly app: RobotMcpApp;
  readonly client: Client;
  readonly double: RosbridgeDouble;
  /** Every event the server pushed (instead of POSTing them to RVC_CALLBACK_URL). */
  readonly events: InMemoryEventTransport;
  close(): Promise<void>;
}

/** `readOnly: true` is what `--read-only` does: only the tools that do not act are offered. */
export async function startServer(options: { readOnly?: boolean } = {}): Promise<Harness> {
  const double = await startRosbridgeDouble({ speedMps: 5, feedbackIntervalMs: 20, batteryIntervalMs: 20 });
  const connection = new RoslibRosConnection({ url: double.url, server: {{className}} });
  await connection.whenConnected();
  const events = new InMemoryEventTransport();
  const app = bootstrap({{className}}, {
    instance: new {{className}}(connection),
    plugins,
    eventTransport: events,
    logger: silentLogger,
    env: {},
    readOnly: options.readOnly,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await app.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientTransport);
  return {
    app,
    client,
    double,
    events,
    close: async () => {
      await client.close();
      await app.close();
      connection.close();
      await double.stop();
    },
  };
}

/** Calls a tool and parses its text as JSON. */
export async function callJson(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const text = content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Polls until `probe` is true, or fails after `timeoutMs` naming `what`. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
