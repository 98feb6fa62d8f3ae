import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, LongRunningTool, type RobotMcpApp, Tool } from '@robot-mcp-kit/server';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import { listenHttp } from '@robot-mcp-kit/server/advanced';
import { textOf } from '@robot-mcp-kit/server/testing';
import { until } from '../../../../test/support/until.js';

class ScanArgs {
  @IsOptional()
  @IsString()
  shape?: 'good' | 'wrong' | 'extra' | 'null' | 'text';
}

class ScanResult {
  @IsInt()
  @Min(0)
  objects!: number;

  @IsOptional()
  @IsString()
  label?: string;
}

const ANSWERS: Record<string, unknown> = {
  good: { objects: 3, label: 'kitchen' },
  wrong: { objects: 'many' },
  extra: { objects: 1, colour: 'red' },
  null: { objects: 1, label: null },
  text: 'three objects',
};

@CapabilityServer({ name: 'typed', version: '0.0.1' })
class TypedServer {
  private readonly running = new Set<() => void>();

  @Tool({ description: 'Scan the room', title: 'Scan the room', result: ScanResult })
  scan(args: ScanArgs): unknown {
    return ANSWERS[args.shape ?? 'good'];
  }

  @Tool({ description: 'Say hello', annotations: { title: 'Say hello' } })
  hello(): string {
    return 'hello';
  }

  @LongRunningTool({ description: 'Drive until cancelled', title: 'Drive' })
  async drive(_args: ScanArgs, ctx: TaskContext): Promise<JsonObject> {
    return new Promise<JsonObject>((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
    });
  }

  @LongRunningTool({ description: 'Finish at once' })
  async blink(_args: ScanArgs): Promise<JsonObject> {
    return { ok: this.running.size === 0 };
  }
}

const KIT_TOOLS = ['get_task', 'cancel_task', 'list_tasks', 'get_events', 'wait_for_event'];

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** The server on 127.0.0.1 (port 0) and an official SDK client with default options. */
async function serve(): Promise<{ app: RobotMcpApp; client: Client }> {
  const logger = new MemoryLogger();
  const app = bootstrap(TypedServer, { env: {}, logger, eventTransport: new InMemoryEventTransport() });
  const listener = await listenHttp(
    { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    async (transport) => void (await app.connect(transport)),
    logger,
  );
  const client = new Client({ name: 'typed-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  cleanups.push(
    () => app.close({ timeoutMs: 500 }),
    () => listener.close(),
    () => client.close(),
  );
  return { app, client };
}

/** Calls a tool; the SDK client validates structuredContent against the listed outputSchema. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A kit answer: not an error, its structuredContent is the object its text holds. */
function structured(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual(JSON.parse(textOf(result)));
  return result.structuredContent as Record<string, unknown>;
}

describe('typed tools (outputSchema, structuredContent, title, task links)', () => {
  it("lists the kit's tools with outputSchema and title, and the SDK client accepts every answer", async () => {
    const { client } = await serve();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of KIT_TOOLS) {
      expect({ name, type: byName.get(name)?.outputSchema?.type }).toEqual({ name, type: 'object' });
      expect({ name, title: typeof byName.get(name)?.title }).toEqual({ name, title: 'string' });
    }
    expect(byName.get('drive')?.title).toBe('Drive');
    expect(byName.get('hello')?.title).toBe('Say hello');
    expect(byName.get('drive')?.outputSchema).toBeUndefined();

    const started = await call(client, 'drive');
    const taskId = (started.structuredContent as { task_id: string }).task_id;
    expect(started.content).toContainEqual(
      expect.objectContaining({
        type: 'resource_link',
        uri: `tasks://${taskId}`,
        mimeType: 'application/json',
      }),
    );
    expect(structured(await call(client, 'get_task', { task_id: taskId }))).toMatchObject({
      task_id: taskId,
      state: 'running',
      failure: null,
    });
    expect(structured(await call(client, 'get_task', { task_id: 'typed-000000' }))).toEqual({
      error: 'not_found',
    });
    expect(structured(await call(client, 'list_tasks', { limit: 1 }))).toMatchObject({
      tasks: [{ task_id: taskId }],
    });
    expect(structured(await call(client, 'cancel_task', { task_id: taskId }))).toMatchObject({
      task_id: taskId,
      state: 'cancelled',
    });
    const done = structured(await call(client, 'get_task', { task_id: taskId }));
    expect(done).toMatchObject({ state: 'cancelled' });
    const page = structured(await call(client, 'get_events', { since: 0 }));
    expect(page.entries).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'cancelled' })]));
    const waited = structured(
      await call(client, 'wait_for_event', { since: 0, type: 'cancelled', timeout_s: 5 }),
    );
    expect(waited).toMatchObject({ timeout: false, entry: { kind: 'cancelled', task_id: taskId } });
  });

  it('checks what a @Tool({ result }) returns against its class, naming the field', async () => {
    const { client } = await serve();
    const { tools } = await client.listTools();
    const scan = tools.find((t) => t.name === 'scan');
    expect(scan?.title).toBe('Scan the room');
    expect(scan?.outputSchema).toMatchObject({
      type: 'object',
      properties: { objects: { type: 'integer' }, label: { type: 'string' } },
      required: ['objects'],
    });
    expect(structured(await call(client, 'scan', { shape: 'good' }))).toEqual(ANSWERS.good);
    const refusals: [string, RegExp][] = [
      ['wrong', /scan returned a result that does not match its result class ScanResult: objects: /],
      ['extra', /ScanResult: colour: property colour should not exist/],
      ['null', /label: is null, which its schema does not allow; leave the property out instead/],
      ['text', /ScanResult: it returned no object/],
    ];
    for (const [shape, message] of refusals) {
      const result = await call(client, 'scan', { shape });
      expect({ shape, isError: result.isError, text: textOf(result) }).toEqual({
        shape,
        isError: true,
        text: expect.stringMatching(message),
      });
    }
  });

  it('refuses a result that is not a DTO class at bootstrap', () => {
    @CapabilityServer({ name: 'untyped', version: '0.0.1' })
    class BadResult {
      @Tool({ description: 'Scan', result: String as never })
      scan(): string {
        return 'x';
      }
    }
    expect(() => bootstrap(BadResult, { env: {}, logger: new MemoryLogger() })).toThrow(
      /BadResult\.scan.*`result` is not a DTO class/s,
    );
  });

  it('lists the running tasks and the recent finished ones only (bounded), reads any', async () => {
    const { app, client } = await serve();
    const finished: string[] = [];
    for (let i = 0; i < 25; i += 1) {
      finished.push(((await call(client, 'blink')).structuredContent as { task_id: string }).task_id);
    }
    await until(
      () => finished.every((id) => app.taskManager.get(id)?.state === 'succeeded'),
      'every blink task succeeded',
    );
    const running = ((await call(client, 'drive')).structuredContent as { task_id: string }).task_id;
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'tasks://running',
      ...finished.slice(-20).map((id) => `tasks://${id}`),
      `tasks://${running}`,
    ]);
    const { contents } = await client.readResource({ uri: `tasks://${finished[0]}` });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ task_id: finished[0] });
  });
});
