import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, type TaskEvent } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type BootstrapOptions, type CapabilityServerClass } from '../bootstrap/bootstrap.js';
import { type RobotMcpApp } from '../runtime/robot-mcp-app.js';

/**
 * A capability server under test: bootstrapped with an in-memory event transport and logger, and an
 * official SDK client connected over an in-memory pair.
 */
export interface TestClient {
  readonly app: RobotMcpApp;
  readonly client: Client;
  /** Every event the server pushed (acknowledged at once). */
  readonly transport: InMemoryEventTransport;
  readonly logger: MemoryLogger;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool and parses its first text content as JSON. */
  json<R = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<R>;
  /** The delivered events, all or of one task, in delivery order. */
  events(taskId?: string): TaskEvent[];
  /** With a `ManualClock`: moves time forward, then waits until every posted event is delivered. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Bootstraps `ServerClass` for a test (`env: {}` so the machine's variables don't leak in, events
 * recorded by an {@link InMemoryEventTransport}) and connects an SDK client to it.
 *
 * ```ts
 * const t = await connectTestClient(SleeperServer, { clock: new ManualClock() });
 * const started = await t.json('sleep_task', { duration_s: 2 });
 * await t.advance(2000);
 * expect(t.events(started.task_id as string).at(-1)?.type).toBe('task_done');
 * ```
 */
export async function connectTestClient<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  testOptions: BootstrapOptions<T> & {
    /** Answers the server's `elicitation/create` (the client then declares the capability). */
    elicit?: (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
  } = {},
): Promise<TestClient> {
  const { elicit, ...options } = testOptions;
  const transport =
    options.eventTransport instanceof InMemoryEventTransport
      ? options.eventTransport
      : new InMemoryEventTransport();
  const logger = options.logger instanceof MemoryLogger ? options.logger : new MemoryLogger();
  const app = bootstrap(ServerClass, { env: {}, ...options, eventTransport: transport, logger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client(
    { name: 'robot-mcp-kit-test', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: {} } } : {},
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    app,
    client,
    transport,
    logger,
    call,
    async json<R>(name: string, args?: Record<string, unknown>): Promise<R> {
      return JSON.parse(textOf(await call(name, args))) as R;
    },
    events: (taskId?: string) =>
      taskId === undefined ? [...transport.events] : transport.events.filter((e) => e.task_id === taskId),
    async advance(ms: number): Promise<void> {
      if (!(options.clock instanceof ManualClock)) {
        throw new ConfigError(
          'clock',
          'advance() needs connectTestClient(..., { clock: new ManualClock() })',
        );
      }
      await options.clock.advance(ms);
      await app.poster.flush();
    },
    async close(): Promise<void> {
      await client.close();
      await app.close({ timeoutMs: 1000 });
    },
  };
}

/** The text of a tool result's first content ('' when it has none). */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}
