import { afterEach, describe, expect, it } from '@jest/globals';
import { IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { CapabilityServer, LongRunningTool, Tool } from '@robot-mcp-kit/server';
import { MAX_LIST_BYTES } from '../../src/tools/task-list.pager.js';
import { connect, type Harness, textOf } from '../fixtures/harness.js';

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

  @Tool({ description: 'Answers pong', annotations: { readOnlyHint: true } })
  ping(): string {
    return 'pong';
  }
}

type Page = { tasks: { task_id: string; state: string }[]; next_cursor?: string };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** 64 triggers of about 15 KB each: about 1 MB of TaskInfo JSON per task. */
const bigTriggers = Array.from({ length: 64 }, (_, i) => ({
  type: 'progress_above',
  percent: 99,
  note: `${i}`.padEnd(15_000, 'x'),
}));

async function readAll(
  harness: Harness,
  args: Record<string, unknown>,
): Promise<{ pages: Page[]; sizes: number[] }> {
  const pages: Page[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const result = await harness.call('list_tasks', { ...args, ...(cursor ? { cursor } : {}) });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    sizes.push(Buffer.byteLength(text));
    const page = JSON.parse(text) as Page;
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor !== undefined && pages.length < 100);
  return { pages, sizes };
}

describe('list_tasks paging', () => {
  it('cuts answers to the byte cap and reaches every task once through next_cursor', async () => {
    h = await connect(HolderServer);
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const started = await h.json<{ task_id: string }>('hold', { label: `t${i}`, triggers: bigTriggers });
      ids.push(started.task_id);
    }
    const { pages, sizes } = await readAll(h, { states: ['running'] });
    expect(pages.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(MAX_LIST_BYTES + 100_000);
    expect(pages.flatMap((p) => p.tasks.map((t) => t.task_id))).toEqual(ids);
    expect(pages.at(-1)?.next_cursor).toBeUndefined();
  });

  it('honours limit, keeps the plain answer for a short list, and refuses a foreign cursor', async () => {
    h = await connect(HolderServer);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push((await h.json<{ task_id: string }>('hold', { label: `t${i}` })).task_id);
    const first = await h.json<Page>('list_tasks', { limit: 2 });
    expect(first.tasks.map((t) => t.task_id)).toEqual(ids.slice(0, 2));
    expect(first.next_cursor).toEqual(expect.any(String));
    const { pages } = await readAll(h, { limit: 2 });
    expect(pages.map((p) => p.tasks.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.tasks.map((t) => t.task_id))).toEqual(ids);
    expect(Object.keys(await h.json('list_tasks'))).toEqual(['tasks']);
    const bad = await h.call('list_tasks', { cursor: 'nope' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/cursor: not a list_tasks cursor/);
    const tooMany = await h.call('list_tasks', { limit: 10_000 });
    expect(tooMany.isError).toBe(true);
  });

  it('continues after a cursor whose task was cancelled meanwhile (states filter)', async () => {
    h = await connect(HolderServer);
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1)
      ids.push((await h.json<{ task_id: string }>('hold', { label: `t${i}` })).task_id);
    const first = await h.json<Page>('list_tasks', { states: ['running'], limit: 2 });
    await h.call('cancel_task', { task_id: ids[1]! });
    const second = await h.json<Page>('list_tasks', {
      states: ['running'],
      limit: 2,
      cursor: first.next_cursor,
    });
    expect(second.tasks.map((t) => t.task_id)).toEqual(ids.slice(2));
  });
});
