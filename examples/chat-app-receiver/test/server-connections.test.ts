// ServerConnections against the built sleeper: over stdio (spawned by the connection, pushing to
// a receiver here) and over streamable HTTP (down at first, then restarted).
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { Reconciler } from '@robot-mcp-kit/receiver';
import { describeTarget, ServerConnections } from '../src/server-connections.js';
import {
  freePort,
  requireBuilt,
  Resources,
  SECRET,
  SLEEPER_MAIN,
  startReceiver,
  startSleeper,
  waitFor,
} from './e2e.harness.js';

const resources = new Resources();
beforeAll(() => requireBuilt(SLEEPER_MAIN));
afterEach(() => resources.cleanup());

const listTasks = { name: 'list_tasks', arguments: { states: ['running'] } };

describe('ServerConnections', () => {
  it('starts a stdio server with RVC_CALLBACK_URL/RVC_EVENT_SECRET pointing at the app', async () => {
    const delivered: TaskEvent[] = [];
    const rx = await startReceiver(resources, {
      secrets: { sleeper: SECRET },
      onEvent: (e) => void delivered.push(e),
    });
    const logger = new MemoryLogger();
    const servers = new ServerConnections(
      {
        host: '127.0.0.1',
        port: rx.port,
        secrets: { sleeper: SECRET },
        servers: [{ name: 'sleeper', kind: 'stdio', command: process.execPath, args: [SLEEPER_MAIN] }],
      },
      { logger, env: { PATH: process.env.PATH, LOG_LEVEL: 'error', RECEIVER_SECRETS: `sleeper=${SECRET}` } },
    );
    resources.onCleanup(() => servers.close());
    await servers.connectAll();
    expect(logger.at('info', 'connected to MCP server')).toHaveLength(1);

    const started = (await servers.callers.sleeper!.callTool({
      name: 'sleep_task',
      arguments: { duration_s: 1 },
    })) as CallToolResult;
    const taskId = (started.structuredContent as { task_id: string }).task_id;
    const report = await new Reconciler({ servers: servers.callers }).reconcile();
    expect(report.running.map((t) => t.task_id)).toEqual([taskId]);
    // The stdio server signs with the app's secret for it and posts to the app's URL.
    await waitFor('task_done', () => delivered.find((e) => e.type === 'task_done' && e.task_id === taskId));

    await servers.close();
    await expect(servers.callers.sleeper!.callTool(listTasks)).rejects.toThrow(
      'the connection to sleeper is closed',
    );
  });

  it('connects on first use, retries after a failure and reconnects after the server restarts', async () => {
    const port = await freePort();
    const logger = new MemoryLogger();
    const target = { name: 'sleeper', kind: 'http' as const, url: new URL(`http://127.0.0.1:${port}/mcp`) };
    const servers = new ServerConnections(
      { host: '127.0.0.1', port: 8000, secrets: { sleeper: SECRET }, servers: [target] },
      { logger },
    );
    resources.onCleanup(() => servers.close());
    const caller = servers.callers.sleeper!;

    // Down: the call fails, and so does reconciling (reported, not thrown).
    await expect(caller.callTool(listTasks)).rejects.toThrow();
    expect(logger.at('warn', 'cannot connect to MCP server')[0]?.meta).toMatchObject({
      server: 'sleeper',
      target: `http://127.0.0.1:${port}/mcp`,
    });
    const down = await new Reconciler({ servers: servers.callers }).reconcile();
    expect(down.errors).toHaveLength(1);

    // Up: the next call connects.
    const first = await startSleeper(resources, {}, port);
    expect(((await caller.callTool(listTasks)) as CallToolResult).isError).toBeFalsy();

    // Restarted: the old session is gone; a call may fail once, then the connection is new.
    first.child.kill('SIGKILL');
    await waitFor(
      'the sleeper to exit',
      () => first.child.exitCode !== null || first.child.signalCode !== null,
    );
    await startSleeper(resources, {}, port);
    const result = await waitFor('a call on a new session', async () => {
      try {
        return (await caller.callTool(listTasks)) as CallToolResult;
      } catch {
        return undefined;
      }
    });
    expect(result.isError).toBeFalsy();
    expect(logger.at('info', 'connected to MCP server').length).toBeGreaterThanOrEqual(2);
  });

  it('describes targets without URL queries', () => {
    expect(describeTarget({ name: 's', kind: 'http', url: new URL('http://h:1/mcp?token=secret') })).toBe(
      'http://h:1/mcp',
    );
    expect(describeTarget({ name: 's', kind: 'stdio', command: 'node', args: ['main.js', '-v'] })).toBe(
      'node main.js -v',
    );
  });
});
