import { afterEach, describe, expect, it } from '@jest/globals';
import { IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { Reconciler, type ToolCaller } from '@robot-mcp-kit/receiver';
import { CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { connectTestClient, type TestClient } from '@robot-mcp-kit/server/testing';

class HoldArgs {
  @IsString()
  label!: string;
}

@CapabilityServer({ name: 'holder', version: '1.0.0' })
class HolderServer {
  @LongRunningTool({ description: 'Hold until cancelled' })
  async hold(_args: HoldArgs, ctx: TaskContext): Promise<JsonObject> {
    await ctx.sleep(3_600_000);
    return {};
  }
}

let t: TestClient | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('Reconciler against a kit server', () => {
  it('reads the running tasks page by page through next_cursor', async () => {
    t = await connectTestClient(HolderServer);
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1)
      ids.push((await t.json<{ task_id: string }>('hold', { label: `t${i}` })).task_id);
    const calls: unknown[] = [];
    const client = t.client;
    const recording: ToolCaller = {
      callTool: (params, schema, options) => {
        calls.push(params.arguments);
        return client.callTool(params, schema, options);
      },
    };
    const report = await new Reconciler({ servers: { holder: recording }, pageSize: 3 }).reconcile();
    expect(report.errors).toEqual([]);
    expect(report.running.map((info) => info.task_id)).toEqual(ids);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual({ states: ['running'], limit: 3 });
    expect(calls[1]).toMatchObject({ states: ['running'], limit: 3, cursor: expect.any(String) });
  });
});
