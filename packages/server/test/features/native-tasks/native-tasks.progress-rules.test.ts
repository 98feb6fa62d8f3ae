import { afterEach, describe, expect, it } from '@jest/globals';
import { IsArray, IsNumber } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type Progress } from '@modelcontextprotocol/sdk/types.js';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { createTask, type Rig, rig, until } from './native-tasks.fixtures.js';

class PercentsArgs {
  @IsArray()
  @IsNumber({}, { each: true })
  percents!: number[];
}

/** Reports the given percents in order, one per gate the test opens. */
@CapabilityServer({ name: 'stepper', version: '1.0.0' })
class StepperServer {
  gates: Array<() => void> = [];

  @LongRunningTool({ description: 'Report the given percents' })
  async report(args: PercentsArgs, ctx: TaskContext): Promise<JsonObject> {
    for (const percent of args.percents) {
      await new Promise<void>((resolve) => this.gates.push(resolve));
      await ctx.progress({ percent });
    }
    return { reported: args.percents.length };
  }
}

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

async function openAll(server: StepperServer, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await until(() => server.gates.length > 0);
    server.gates.shift()?.();
  }
}

/** An official SDK client with its default options, recording what it reports through onerror. */
async function defaultClient(app: Rig['app']): Promise<{ client: Client; errors: Error[] }> {
  const client = new Client({ name: 'default-client', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  await client.connect(clientSide);
  return { client, errors };
}

describe('progress notifications', () => {
  it('a plain call with onprogress: the default SDK client sees no onerror ("unknown token")', async () => {
    r = await rig(StepperServer);
    const server = r.app.instance as StepperServer;
    const { client, errors } = await defaultClient(r.app);
    const seen: Progress[] = [];
    const result = await client.callTool(
      { name: 'report', arguments: { percents: [10, 20, 30] } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    );
    expect(result.isError).toBeFalsy();
    await openAll(server, 3);
    await until(() => r!.app.taskManager.list(['succeeded']).length === 1);
    await r.app.poster.flush(1000);
    // a ping round-trip: anything the server sent before it has reached the client
    await client.ping();
    expect(errors.map((e) => e.message)).toEqual([]);
    await client.close();
  });

  it('strictly increase per token: a repeated or lower value is not sent', async () => {
    r = await rig(StepperServer);
    const server = r.app.instance as StepperServer;
    const peer = await r.peer();
    const errors: Error[] = [];
    peer.client.onerror = (error) => errors.push(error);
    const seen: Progress[] = [];
    await createTask(
      peer.client,
      'report',
      { percents: [10, 80.6, 80.6, 40, 90] },
      { onprogress: (p) => seen.push(p) },
    );
    await openAll(server, 5);
    await until(() => r!.app.taskManager.list(['succeeded']).length === 1);
    await until(() => seen.length >= 3);
    await peer.client.ping();
    expect(seen.map((p) => p.progress)).toEqual([10, 80.6, 90]);
    expect(errors).toEqual([]);
  });
});
