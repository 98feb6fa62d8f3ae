import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_NAVIGATION_CONFIG } from '../src/navigation.config.js';
import { NavigationServer } from '../src/navigation.server.js';
import { connect, type Harness, textOf } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i += 1) value = [value];
  return value;
}

/** The text of a refusal: a tool error's text or a protocol error's message; throws if accepted. */
async function refusal(call: Promise<CallToolResult>): Promise<string> {
  let result: CallToolResult;
  try {
    result = await call;
  } catch (err) {
    return (err as Error).message;
  }
  if (!result.isError) throw new Error(`accepted: ${textOf(result)}`);
  return textOf(result);
}

describe('hostile input to navigate_to', () => {
  it('refuses a small 2,500-level deep trigger with an error and starts nothing', async () => {
    h = await connect(NavigationServer, { instance: new NavigationServer(DEFAULT_NAVIGATION_CONFIG) });
    const trigger = { type: 'zone_entered', zone: 'kitchen', deep: nested(2500) };
    expect(JSON.stringify(trigger).length).toBeLessThan(16_384);
    const text = await refusal(h.call('navigate_to', { goal: 'kitchen', triggers: [trigger] }));
    expect(text).toMatch(/params\.arguments\.triggers\[0\]\.deep\[0\].*: nested deeper than \d+ levels/);
    expect(text).not.toMatch(/call stack/);
    expect(text.length).toBeLessThan(400);
    expect(h.app.taskManager.list()).toEqual([]);
    expect((await h.json('get_pose')).moving).toBe(false);
    expect(await h.json('list_tasks')).toEqual({ tasks: [] });
  });

  it('refuses a deep trigger given to the TaskManager directly, before anything starts', () => {
    const deep = { type: 'zone_entered', zone: 'kitchen', deep: nested(2500) };
    const body = jest.fn(() => Promise.resolve({}));
    return connect(NavigationServer, { instance: new NavigationServer(DEFAULT_NAVIGATION_CONFIG) }).then(
      async (harness) => {
        h = harness;
        expect(() => harness.app.taskManager.start('navigate_to', body, { triggers: [deep] })).toThrow(
          /triggers\[0\]\.deep\[0\].*nested deeper than 16 levels/,
        );
        expect(harness.app.taskManager.list()).toEqual([]);
        await Promise.resolve();
        expect(body).not.toHaveBeenCalled();
      },
    );
  });

  it('refuses a top-level "__proto__" argument key instead of dropping it', async () => {
    h = await connect(NavigationServer, { instance: new NavigationServer(DEFAULT_NAVIGATION_CONFIG) });
    const args = JSON.parse('{"goal":"kitchen","__proto__":{"x":1}}') as Record<string, unknown>;
    const text = await refusal(h.call('navigate_to', args));
    expect(text).toBe(
      'MCP error -32602: Invalid params: params.arguments.__proto__: the key "__proto__" is not allowed (it could pollute prototypes)',
    );
    expect(h.app.taskManager.list()).toEqual([]);
  });

  it('refuses "__proto__" in task metadata of a task-augmented call', async () => {
    h = await connect(NavigationServer, { instance: new NavigationServer(DEFAULT_NAVIGATION_CONFIG) });
    const task = JSON.parse('{"ttl":60000,"__proto__":{"x":1}}') as Record<string, unknown>;
    const text = await refusal(
      h.client.request(
        { method: 'tools/call', params: { name: 'navigate_to', arguments: { goal: 'kitchen' }, task } },
        (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema,
      ) as unknown as Promise<CallToolResult>,
    );
    expect(text).toMatch(/params\.task\.__proto__: the key "__proto__" is not allowed/);
    expect(h.app.taskManager.list()).toEqual([]);
  });
});

describe('progress notifications of navigate_to', () => {
  it('strictly increase when the robot stops at the closed lab door (the repeated report is not sent)', async () => {
    h = await connect(NavigationServer, {
      instance: new NavigationServer({ ...DEFAULT_NAVIGATION_CONFIG, speedMps: 2, tickMs: 250 }),
    });
    await h.client.listTools();
    const errors: Error[] = [];
    h.client.onerror = (error) => errors.push(error);
    const seen: number[] = [];
    const stream = h.client.experimental.tasks.callToolStream(
      { name: 'navigate_to', arguments: { goal: 'lab' } },
      CallToolResultSchema,
      { task: {}, onprogress: (p) => seen.push(p.progress) },
    );
    const first = await stream.next();
    await stream.return(undefined);
    expect((first.value as { type: string }).type).toBe('taskCreated');
    await h.advance(30_000);
    const taskId = h.app.taskManager.list()[0]!.task_id;
    expect(h.app.taskManager.get(taskId)?.state).toBe('failed');
    const reported = h
      .events(taskId)
      .filter((e) => e.type === 'progress')
      .map((e) => e.payload.percent as number);
    await h.client.ping();
    expect(reported.at(-1)).toBe(reported.at(-2)); // the robot reported the same percent twice
    expect(seen.length).toBe(reported.length - 1);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    expect(errors).toEqual([]);
  });
});
