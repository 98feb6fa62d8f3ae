import { IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { connect, type Harness, until } from '../fixtures/harness.js';

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

  /** Declared without `async` and returns a plain object: a mistake found at call time. */
  @LongRunningTool({ description: 'Returns a plain object' })
  sync(args: GoalArgs, _ctx: TaskContext): JsonObject {
    return { blocked: args.goal };
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

  it('fails the task with the fix when the method returned no Promise', async () => {
    h = await connect(PromiseServer);
    const info = await run('sync');
    expect(info.state).toBe('failed');
    const failure = info.failure as { error_code: string; message: string; recoverable: boolean };
    expect(failure.error_code).toBe('NOT_A_PROMISE');
    expect(failure.message).toContain('sync returned object, not a Promise');
    expect(failure.message).toContain('async sync(args, ctx)');
    expect(failure.recoverable).toBe(false);
    await until(() => h!.events().some((e) => e.type === 'task_failed'), 15_000);
  });
});
