import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type Progress,
  type Task,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Clock, type JsonObject, TaskError, type TaskContext } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import {
  bootstrap,
  type BootstrapOptions,
  type CapabilityServerClass,
  CapabilityServer,
  JSONSchema,
  LongRunningTool,
  type RobotMcpApp,
  Tool,
} from '@robot-mcp-kit/server';
import { textOf, until } from '../../fixtures/harness.js';

export class MoveArgs {
  @JSONSchema({ description: 'Steps to move (each waits for the test to open a gate)' })
  @IsInt()
  @Min(1)
  @Max(20)
  steps!: number;

  @IsOptional()
  @IsString()
  label?: string;

  @IsOptional()
  @IsBoolean()
  fail?: boolean;
}

export class CountArgs {
  @IsInt()
  @Min(1)
  items!: number;
}

/** A test server whose task bodies advance only when the test opens a gate. */
@CapabilityServer({ name: 'arm', version: '1.0.0' })
export class ArmServer {
  gates: Array<() => void> = [];
  /** Steps the move bodies completed, in order (a cancelled body adds no more). */
  steps: number[] = [];
  /** Task ids whose body saw its signal abort. */
  aborted: string[] = [];

  private waitGate(ctx: TaskContext): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.gates = this.gates.filter((gate) => gate !== open);
        this.aborted.push(ctx.taskId);
        reject(ctx.signal.reason as Error);
      };
      const open = (): void => {
        ctx.signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.gates.push(open);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  @LongRunningTool({ description: 'Move the arm step by step', actuates: true })
  async move(args: MoveArgs, ctx: TaskContext): Promise<JsonObject> {
    for (let step = 1; step <= args.steps; step += 1) {
      await this.waitGate(ctx);
      this.steps.push(step);
      const percent = Math.round((100 * step) / args.steps);
      await ctx.progress(
        args.label
          ? { percent, message: `${args.label} ${step}/${args.steps}` }
          : { percent, eta_s: args.steps - step },
      );
    }
    if (args.fail)
      throw new TaskError('GRIPPER_JAMMED', 'The gripper jammed.', { suggestions: ['open_gripper'] });
    return { moved: args.steps };
  }

  @LongRunningTool({ description: 'Count items without a percent' })
  async count(args: CountArgs, ctx: TaskContext): Promise<JsonObject> {
    for (let item = 1; item <= args.items; item += 1) {
      await this.waitGate(ctx);
      await ctx.progress({ item });
    }
    return { counted: args.items };
  }

  @LongRunningTool({ description: 'Hold the gripper closed (one at a time)', maxConcurrent: 1 })
  async grip(_args: CountArgs, ctx: TaskContext): Promise<JsonObject> {
    await this.waitGate(ctx);
    return { held: true };
  }

  @Tool({ description: 'Answers pong', annotations: { readOnlyHint: true } })
  ping(): string {
    return 'pong';
  }
}

/** A connected official SDK client plus what it observed. */
export interface Peer {
  readonly client: Client;
  readonly statuses: Task[];
  close(): Promise<void>;
}

export interface Rig {
  readonly app: RobotMcpApp;
  readonly events: InMemoryEventTransport;
  readonly logger: MemoryLogger;
  /** The streamable-HTTP endpoint when the rig listens. */
  readonly url: string | undefined;
  /** A new client session (in-memory pair, or streamable HTTP when the rig listens). */
  peer(): Promise<Peer>;
  close(): Promise<void>;
}

/** Bootstraps `ServerClass` with an in-memory event transport; `http` listens on 127.0.0.1:0. */
export async function rig<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: BootstrapOptions<T> & { http?: boolean; clock?: Clock } = {},
): Promise<Rig> {
  const { http, ...rest } = options;
  const events = new InMemoryEventTransport();
  const logger = new MemoryLogger();
  const app = bootstrap(ServerClass, { eventTransport: events, logger, env: {}, ...rest });
  const url = http
    ? (await app.listen({ kind: 'streamable-http', port: 0, host: '127.0.0.1' })).url
    : undefined;
  const peers: Peer[] = [];
  return {
    app,
    events,
    logger,
    url,
    async peer() {
      const client = new Client({ name: 'native-tasks-test', version: '1.0.0' });
      const statuses: Task[] = [];
      client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
        statuses.push(n.params as Task);
      });
      if (url) {
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      } else {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await app.connect(serverSide);
        await client.connect(clientSide);
      }
      await client.listTools(); // caches execution.taskSupport for callToolStream
      const peer: Peer = { client, statuses, close: () => client.close() };
      peers.push(peer);
      return peer;
    },
    async close() {
      await Promise.allSettled(peers.map((p) => p.close()));
      await app.close({ timeoutMs: 1000 });
    },
  };
}

/** Starts a task-augmented call and returns the CreateTaskResult's task. */
export async function createTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { ttl?: number; onprogress?: (p: Progress) => void } = {},
): Promise<Task> {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: options.ttl === undefined ? {} : { ttl: options.ttl },
    ...(options.onprogress ? { onprogress: options.onprogress } : {}),
  });
  const first = await stream.next();
  await stream.return(undefined);
  const message = first.value as { type: string; task?: Task; error?: Error } | undefined;
  if (!message || message.type !== 'taskCreated' || !message.task) {
    throw new Error(`expected taskCreated, got ${JSON.stringify(message)}`);
  }
  return message.task;
}

/** Opens the next gate of an ArmServer once a body waits on one. */
export async function openGate(arm: ArmServer): Promise<void> {
  await until(() => arm.gates.length > 0);
  arm.gates.shift()?.();
}

export { eventsOf, textOf, until } from '../../fixtures/harness.js';

/** The JSON of a reconciliation tool's text result. */
export async function toolJson(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return JSON.parse(textOf(result)) as Record<string, unknown>;
}

/** The code of an McpError a promise rejects with. */
export async function errorCodeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (err) {
    return (err as { code?: number }).code;
  }
  throw new Error('expected the request to fail');
}
