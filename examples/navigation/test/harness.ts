import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, ManualClock, MemoryLogger, type TaskEvent } from '@robot-mcp-kit/core';
import {
  bootstrap,
  type BootstrapOptions,
  type CapabilityServerClass,
  type RobotMcpApp,
} from '@robot-mcp-kit/server';

/** A bootstrapped server on a ManualClock, an SDK client over an in-memory pair, and the events it posted. */
export interface Harness {
  readonly app: RobotMcpApp;
  readonly client: Client;
  readonly clock: ManualClock;
  readonly transport: InMemoryEventTransport;
  readonly logger: MemoryLogger;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool and parses its text content as JSON. */
  json<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Moves simulated time forward, then waits until every event posted so far is delivered. */
  advance(ms: number): Promise<void>;
  /** The delivered events of one task, in delivery order. */
  events(taskId: string): TaskEvent[];
  close(): Promise<void>;
}

export async function connect<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: BootstrapOptions<T> = {},
): Promise<Harness> {
  const clock = new ManualClock();
  const transport = new InMemoryEventTransport();
  const logger = new MemoryLogger();
  const app = bootstrap(ServerClass, { eventTransport: transport, logger, clock, env: {}, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    app,
    client,
    clock,
    transport,
    logger,
    call,
    async json<R>(name: string, args?: Record<string, unknown>): Promise<R> {
      return JSON.parse(textOf(await call(name, args))) as R;
    },
    async advance(ms: number): Promise<void> {
      await clock.advance(ms);
      await app.poster.flush();
    },
    events: (taskId: string) => transport.events.filter((e) => e.task_id === taskId),
    async close(): Promise<void> {
      await client.close();
      await app.close({ timeoutMs: 1000 });
    },
  };
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}

export const typesOf = (events: readonly TaskEvent[]): string[] => events.map((e) => e.type);
