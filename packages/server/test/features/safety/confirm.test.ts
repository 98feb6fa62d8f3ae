import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  type ElicitResult,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, Tool } from '@robot-mcp-kit/server';
import { IsString } from 'class-validator';

class DoorArgs {
  @IsString() door!: string;
}

@CapabilityServer({ name: 'doors', version: '0.0.1' })
class DoorServer {
  readonly opened: string[] = [];

  @Tool({ description: 'Open a door', actuates: true, confirm: 'Open door {door}?' })
  openDoor(args: DoorArgs): string {
    this.opened.push(args.door);
    return `opened ${args.door}`;
  }

  @Tool({ description: 'Where the robot is', annotations: { readOnlyHint: true } })
  getPose(): string {
    return 'x=0';
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** The server and a real SDK client; `answer` answers elicitation/create (none: no capability). */
async function open(answer?: (message: string) => Promise<ElicitResult>) {
  const instance = new DoorServer();
  const logger = new MemoryLogger();
  const app = bootstrap(DoorServer, {
    env: {},
    instance,
    logger,
    eventTransport: new InMemoryEventTransport(),
    confirmTimeoutMs: 500,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client(
    { name: 'confirmer', version: '1' },
    answer ? { capabilities: { elicitation: {} } } : {},
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer(request.params.message);
    });
  }
  await client.connect(clientSide);
  cleanups.push(
    () => app.close({ timeoutMs: 500 }),
    () => client.close(),
  );
  const call = async () =>
    (await client.callTool({ name: 'open_door', arguments: { door: 'lab' } })) as CallToolResult;
  return { instance, logger, client, asked, call };
}

describe('confirmation before actuation (MCP 2025-11-25 elicitation)', () => {
  it('marks the tool in tools/list', async () => {
    const { client } = await open();
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'open_door')?._meta).toEqual({ 'io.robot-mcp-kit/confirm': true });
    expect(tools.find((t) => t.name === 'get_pose')?._meta).toBeUndefined();
  });

  it('runs the tool when the human accepts, with the message filled from the arguments', async () => {
    const { instance, asked, call, logger } = await open(() =>
      Promise.resolve({ action: 'accept', content: {} }),
    );
    expect((await call()).content).toEqual([{ type: 'text', text: 'opened lab' }]);
    expect(asked).toEqual(['Open door lab?']);
    expect(instance.opened).toEqual(['lab']);
    expect(logger.entries.find((e) => e.message === 'confirmation')?.meta).toMatchObject({
      tool: 'open_door',
      principal: 'anonymous',
      decision: 'confirmed',
    });
  });

  it('starts nothing when the human declines', async () => {
    const { instance, call, logger } = await open(() => Promise.resolve({ action: 'decline' }));
    const refused = await call();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(JSON.stringify(refused.content)).toContain('declined');
    expect(instance.opened).toEqual([]);
    expect(logger.entries.find((e) => e.message === 'confirmation')?.meta).toMatchObject({
      decision: 'refused',
    });
  });

  it('starts nothing when the human never answers (timeout)', async () => {
    const { instance, call } = await open(() => new Promise<ElicitResult>(() => undefined));
    const refused = await call();
    expect(refused.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(JSON.stringify(refused.content)).toContain('no answer to the confirmation');
    expect(instance.opened).toEqual([]);
  });

  it('refuses clearly, starting nothing, for a client that cannot ask (no elicitation capability)', async () => {
    const { instance, call } = await open();
    const refused = await call();
    expect(refused.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(JSON.stringify(refused.content)).toContain('cannot ask');
    expect(instance.opened).toEqual([]);
  });
});
