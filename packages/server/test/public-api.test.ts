import { describe, expect, it } from '@jest/globals';
import * as main from '@robot-mcp-kit/server';
import * as advanced from '@robot-mcp-kit/server/advanced';
import * as testing from '@robot-mcp-kit/server/testing';
import { MAIN_EXPORTS, TESTING_EXPORTS } from './fixtures/public-api.names.js';

const names = (mod: object): string[] => Object.keys(mod).sort();

describe('the public API of @robot-mcp-kit/server', () => {
  it('main entry: exactly the authoring surface', () => {
    expect(names(main)).toEqual([...MAIN_EXPORTS].sort());
  });

  it('testing entry: exactly the test helpers', () => {
    expect(names(testing)).toEqual([...TESTING_EXPORTS].sort());
  });

  it('the main entry re-exports the core classes an author throws, not copies of them', async () => {
    const core = await import('@robot-mcp-kit/core');
    const coreTesting = await import('@robot-mcp-kit/core/testing');
    expect(main.TaskError).toBe(core.TaskError);
    expect(main.TaskCancelledError).toBe(core.TaskCancelledError);
    expect(testing.InMemoryEventTransport).toBe(coreTesting.InMemoryEventTransport);
  });

  it('advanced entry: the extension points, none of them repeating the main entry', () => {
    const extensionPoints = names(advanced);
    expect(extensionPoints).toEqual(
      expect.arrayContaining(['BoundedEventStore', 'listenHttp', 'StaticTokenVerifier', 'ToolRegistry']),
    );
    expect(extensionPoints.filter((name) => name in main || name in testing)).toEqual([]);
  });
});
