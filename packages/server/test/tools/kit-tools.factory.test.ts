import { describe, expect, it } from '@jest/globals';
import { IsString } from 'class-validator';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TaskManager } from '@robot-mcp-kit/core';
import { bootstrap, CapabilityServer, DecorationError, LongRunningTool, Tool } from '@robot-mcp-kit/server';
import { ReconciliationTools } from '../../src/tools/reconciliation.tools.js';
import { exploreTools } from '../../src/scanning/tool.explorer.js';
import { createKitTools } from '../../src/tools/kit-tools.factory.js';
import { DtoSchemaBuilder } from '../../src/schema/dto-schema.js';
import { type ToolCall } from '../../src/tools/registered-tool.js';

class IdArgs {
  @IsString()
  task_id!: string;
}

const CALL = {
  session: { id: 's1' },
  extra: { signal: new AbortController().signal },
} as unknown as ToolCall;

describe('the kit tools go through the authors definitions path', () => {
  it('explores the reconciliation tools from @Tool methods, marked kit, reserved names allowed', () => {
    const definitions = exploreTools(ReconciliationTools, { kit: true });
    expect(definitions.map((d) => [d.name, d.kind, d.kit])).toEqual([
      ['get_task', 'tool', true],
      ['cancel_task', 'tool', true],
      ['list_tasks', 'tool', true],
    ]);
    expect(() => exploreTools(ReconciliationTools)).toThrow(/"get_task" is reserved by the kit/);
  });

  it('still refuses an author tool named like a kit tool, with the same error', () => {
    @CapabilityServer({ name: 'impostor', version: '1' })
    class Impostor {
      @Tool({ name: 'get_task', description: 'pretends to be the kit' })
      mine(args: IdArgs): string {
        return args.task_id;
      }
    }
    let caught: unknown;
    try {
      bootstrap(Impostor, { env: {} });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DecorationError);
    expect((caught as Error).message).toMatch(
      /Impostor\.mine: tool name "get_task" is reserved by the kit \(.*get_task.*\).*my_get_task/,
    );
  });

  it('builds kit tools whose methods get the raw call and answer with their own CallToolResult', async () => {
    const seen: string[] = [];
    class Probe {
      @Tool({ name: 'list_tasks', description: 'probe' })
      probe(args: IdArgs, _ctx: unknown, call: ToolCall): CallToolResult {
        seen.push(`${args.task_id}@${call.session.id}`);
        return { content: [{ type: 'text', text: '{"a":1}' }] };
      }
    }
    const taskManager = new TaskManager({ serverName: 'probe' });
    const [tool] = createKitTools(new Probe(), {
      schemas: new DtoSchemaBuilder(),
      taskManager,
      logger: taskManager.logger,
    });
    expect(tool).toMatchObject({ name: 'list_tasks', origin: 'kit', longRunning: false });
    // A CallToolResult passes through unchanged: no structuredContent added.
    expect(await tool!.call({ task_id: 'x' }, CALL)).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
    });
    expect(seen).toEqual(['x@s1']);
    expect(await tool!.call({}, CALL)).toMatchObject({ isError: true });
    await taskManager.aclose({ flush: false });
  });

  it('refuses a kit tool declared long-running, naming the method and the fix', () => {
    class Slow {
      @LongRunningTool({ name: 'wait_for_event', description: 'would start a task' })
      async slow(_args: IdArgs): Promise<Record<string, never>> {
        return {};
      }
    }
    const taskManager = new TaskManager({ serverName: 'probe' });
    const build = (): unknown =>
      createKitTools(new Slow(), {
        schemas: new DtoSchemaBuilder(),
        taskManager,
        logger: taskManager.logger,
      });
    expect(build).toThrow(DecorationError);
    expect(build).toThrow(
      /Slow\.slow: kit tool wait_for_event is declared with @LongRunningTool.*Fix: declare/,
    );
  });
});
