import { IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { bootstrap, CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { connect, type Harness } from '../fixtures/harness.js';

class GoalArgs {
  @IsString()
  goal!: string;
}

/** Another library's method decorator: wraps the method in a plain (non-async) function. */
function Counted(counter: { calls: number }): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const original = descriptor.value as (...args: unknown[]) => unknown;
    descriptor.value = function counted(this: unknown, ...args: unknown[]): unknown {
      counter.calls += 1;
      return original.apply(this, args);
    };
    return descriptor;
  };
}

const counter = { calls: 0 };

@CapabilityServer({ name: 'promises', version: '1.0.0' })
class PromiseServer {
  /** Not `async`, but returns a Promise. */
  @LongRunningTool({ description: 'Returns a Promise without async' })
  plain(args: GoalArgs, ctx: TaskContext): Promise<JsonObject> {
    return ctx.sleep(10).then(() => ({ reached: args.goal }));
  }

  /** Wrapped by another decorator, below @LongRunningTool (applied first). */
  @LongRunningTool({ description: 'Wrapped by another decorator' })
  @Counted(counter)
  async wrapped(args: GoalArgs, ctx: TaskContext): Promise<JsonObject> {
    await ctx.sleep(10);
    return { wrapped: args.goal };
  }
}

describe('@LongRunningTool accepts any method that returns a Promise', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function run(tool: string): Promise<Record<string, unknown>> {
    const started = await h!.json<{ task_id: string }>(tool, { goal: 'dock' });
    let info: Record<string, unknown> = { state: 'running' };
    const deadline = Date.now() + 15_000;
    while (!['succeeded', 'failed', 'cancelled'].includes(String(info.state))) {
      if (Date.now() > deadline) throw new Error(`${tool} did not finish: ${JSON.stringify(info)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      info = await h!.json('get_task', { task_id: started.task_id });
    }
    return info;
  }

  it('a method that returns a Promise without async', async () => {
    h = await connect(PromiseServer);
    const info = await run('plain');
    expect(info.state).toBe('succeeded');
    expect(info.result).toEqual({ reached: 'dock' });
  });

  it('a method wrapped by another decorator', async () => {
    h = await connect(PromiseServer);
    const before = counter.calls;
    const info = await run('wrapped');
    expect(info.state).toBe('succeeded');
    expect(info.result).toEqual({ wrapped: 'dock' });
    expect(counter.calls).toBe(before + 1);
  });

  it('refuses at bootstrap a method that is not async and not declared to return a Promise', () => {
    @CapabilityServer({ name: 'typed', version: '1.0.0' })
    class Typed {
      /** Declared without `async`, returning a plain object. */
      @LongRunningTool({ description: 'Returns a plain object' })
      sync(args: GoalArgs, _ctx: TaskContext): JsonObject {
        return { blocked: args.goal };
      }
    }
    expect(() => bootstrap(Typed, { env: {} })).toThrow(
      /^Typed\.sync: @LongRunningTool must be put on a method that returns a Promise, but sync is not async and is declared to return Object\. Fix: declare it "async sync\(args: MyArgs, ctx: TaskContext\): Promise<object>" so its body runs in the background; a method that returns a Promise without async is accepted when its return type is declared Promise<\.\.\.>$/,
    );

    @CapabilityServer({ name: 'untyped', version: '1.0.0' })
    class Untyped {
      /** No return type and not async: nothing says it returns a Promise. */
      @LongRunningTool({ description: 'No return type' })
      later(args: GoalArgs, ctx: TaskContext) {
        return ctx.sleep(1).then(() => ({ reached: args.goal }));
      }
    }
    expect(() => bootstrap(Untyped, { env: {} })).toThrow(
      /Untyped\.later: .*but later is not async and its return type is not declared Promise<\.\.\.>\. Fix: declare it "async later/,
    );
  });
});
