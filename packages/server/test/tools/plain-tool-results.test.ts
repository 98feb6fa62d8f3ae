import { afterEach, describe, expect, it } from '@jest/globals';
import { type JsonObject } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { CapabilityServer, Tool } from '@robot-mcp-kit/server';
import { connect, type Harness, textOf } from '../fixtures/harness.js';

/** Plain tools returning what cannot be an answer, and the values that can. */
@CapabilityServer({ name: 'returns', version: '1.0.0' })
class ReturnsServer {
  @Tool({ description: 'Forgets to return' })
  forgot(): void {
    // a body that does its work and returns nothing
  }

  @Tool({ description: 'Returns null' })
  nothing(): null {
    return null;
  }

  @Tool({ description: 'A BigInt inside an object' })
  big(): JsonObject {
    return { count: 12n } as unknown as JsonObject;
  }

  @Tool({ description: 'An object that holds itself' })
  circular(): JsonObject {
    const node: Record<string, unknown> = { name: 'loop' };
    node.self = node;
    return node as JsonObject;
  }

  @Tool({ description: 'A bare BigInt' })
  bare(): bigint {
    return 7n;
  }

  @Tool({ description: 'An object' })
  fine(): JsonObject {
    return { ok: true };
  }

  @Tool({ description: 'An array' })
  list(): number[] {
    return [1, 2];
  }
}

const FIX =
  'return a string, a plain JSON object such as { ok: true } (its JSON is the text and the structuredContent), or a CallToolResult';

describe('what a plain @Tool returns', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([
    ['forgot', 'undefined'],
    ['nothing', 'null'],
    ['big', 'an object that is not JSON-serializable (Do not know how to serialize a BigInt)'],
    ['circular', 'an object that is not JSON-serializable (Converting circular structure to JSON'],
    ['bare', 'a bigint that is not JSON-serializable'],
  ])('%s: a tool error that says what it returned and what to return instead', async (tool, what) => {
    const logger = new MemoryLogger();
    h = await connect(ReturnsServer, { logger });
    const result = await h.call(tool);
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text.startsWith(`${tool} failed: @Tool ReturnsServer.${tool} returned ${what}`)).toBe(true);
    expect(text.endsWith(`; ${FIX}`)).toBe(true);
    // the author's mistake is logged for the operator too
    expect(logger.entries.some((e) => e.level === 'error' && String(e.meta.error).includes(tool))).toBe(true);
  });

  it('an object is its JSON text and structuredContent; an array its JSON text', async () => {
    h = await connect(ReturnsServer);
    expect(await h.call('fine')).toEqual({
      content: [{ type: 'text', text: '{"ok":true}' }],
      structuredContent: { ok: true },
    });
    expect(await h.call('list')).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
  });
});
