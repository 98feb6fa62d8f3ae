import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from '@jest/globals';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { IsInt, Max, Min } from 'class-validator';
import { type JsonObject, silentLogger, type TaskContext } from '@robot-mcp-kit/core';
import { InMemoryEventTransport } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, LongRunningTool, type RobotMcpApp } from '@robot-mcp-kit/server';
import { until, wirePeer } from '../fixtures/harness.js';

// A real collector for this file: a WeakRef can then show what a running task keeps alive.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

class WaitArgs {
  @IsInt()
  @Min(1)
  @Max(600_000)
  ms!: number;
}

@CapabilityServer({ name: 'keeper', version: '1.0.0' })
class KeeperServer {
  @LongRunningTool({ description: 'Sleeps, then reports once' })
  async wait(args: WaitArgs, ctx: TaskContext): Promise<JsonObject> {
    await ctx.sleep(args.ms);
    await ctx.progress({ percent: 100 });
    return { waited_ms: args.ms };
  }
}

let app: RobotMcpApp | undefined;
afterEach(async () => {
  await app?.close({ timeoutMs: 1000 });
  app = undefined;
});

/** Sends a tools/call and keeps only a weak reference to its request object. */
async function callWeakly(send: (m: JSONRPCMessage) => Promise<void>, id: number, ms: number) {
  const request: JSONRPCMessage = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'wait', arguments: { ms }, _meta: { progressToken: `p${id}` } },
  };
  const ref = new WeakRef(request);
  await send(request);
  return ref;
}

/** How many of `refs` a full collection clears, within five rounds (each one turn of the loop apart). */
async function collected(refs: readonly WeakRef<object>[]): Promise<number> {
  const cleared = (): number => refs.filter((ref) => ref.deref() === undefined).length;
  for (let round = 0; round < 5 && cleared() < refs.length; round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    gc(); // a full collection takes about a second in a Jest worker with coverage: no more than needed
  }
  return cleared();
}

describe('a running task and the tool call that started it', () => {
  it('keeps nothing of the call (request, SDK handler extra, session notifications) once answered', async () => {
    const events = new InMemoryEventTransport();
    app = bootstrap(KeeperServer, { eventTransport: events, env: {}, logger: silentLogger });
    const { send, seen } = await wirePeer(app);
    const refs = [await callWeakly(send, 1, 600_000), await callWeakly(send, 2, 600_000)];
    await until(() => seen.filter((m) => 'id' in m && m.id !== 0).length === 2, 'both calls answered');
    expect(app.taskManager.runningCount).toBe(2);

    expect(await collected(refs)).toBe(2);
    expect(app.taskManager.runningCount).toBe(2); // still running: only the call's objects are gone
  });

  it('still delivers the task’s events after its call was collected', async () => {
    const events = new InMemoryEventTransport();
    app = bootstrap(KeeperServer, { eventTransport: events, env: {}, logger: silentLogger });
    const { send, seen } = await wirePeer(app);
    const ref = await callWeakly(send, 1, 200);
    await until(() => seen.some((m) => 'id' in m && m.id === 1), 'the call answered');
    expect(await collected([ref])).toBe(1);
    await until(() => events.events.some((e) => e.type === 'task_done'), 'task_done delivered');
    expect(events.events.map((e) => e.type)).toEqual(['progress', 'task_done']);
  });
});
