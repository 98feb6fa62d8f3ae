import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from '@jest/globals';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { IsString } from 'class-validator';
import { exitOf, Resources } from '../support/processes.js';

/**
 * The 2026-07-28 client of docs/native-tasks.md ("A 2026-07-28 client to copy"), run as written: the
 * block between the `client-2026-recipe` markers is saved as a file and run with `node` (as a child
 * process: the SDK v2 client with @modelcontextprotocol/ext-tasks) against a server on 127.0.0.1.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const guide = readFileSync(join(ROOT, 'docs/native-tasks.md'), 'utf8');
const block = /<!-- client-2026-recipe[^>]*-->\s*```js\n([\s\S]*?)```\s*<!-- \/client-2026-recipe -->/.exec(
  guide,
);

class GoArgs {
  @IsString()
  goal!: string;
}

@CapabilityServer({ name: 'recipe', version: '0.0.1' })
class RecipeServer {
  @LongRunningTool({ description: 'Drive to a goal' })
  async driveTo(args: GoArgs, ctx: TaskContext): Promise<JsonObject> {
    await ctx.sleep(args.goal === 'far' ? 60_000 : 50);
    return { arrived: args.goal };
  }
}

const resources = new Resources();
afterEach(() => resources.cleanup());

async function runRecipe(argv: string[]): Promise<string> {
  const app = bootstrap(RecipeServer, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  resources.onCleanup(() => app.close({ timeoutMs: 500 }));
  // In the repository, so that the client packages resolve from its node_modules.
  const file = join(ROOT, 'test', 'docs', `.client-2026-${process.pid}.mjs`);
  writeFileSync(file, block![1]!);
  resources.onCleanup(async () => rmSync(file, { force: true }));
  const child = resources.track(
    spawn(process.execPath, [file, info.url!, ...argv], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await exitOf(child);
  if (code !== 0) throw new Error(`the recipe exited ${String(code)}:\n${out}`);
  return out;
}

it('docs/native-tasks.md has the recipe block', () => {
  expect(block?.[1]).toContain("from '@modelcontextprotocol/ext-tasks/client'");
});

it('runs a long-running tool as a 2026 task to completion and prints its result', async () => {
  const out = await runRecipe(['drive_to', '{"goal": "kitchen"}']);
  expect(out).toContain('started: task\n');
  expect(out).toContain('status: completed\n');
  expect(out).toMatch(/result: .*arrived.*kitchen/);
}, 60_000);

it('cancels the task with "cancel"', async () => {
  const out = await runRecipe(['drive_to', '{"goal": "far"}', 'cancel']);
  expect(out).toContain('started: task\n');
  expect(out).toContain('status: cancelled\n');
}, 60_000);
