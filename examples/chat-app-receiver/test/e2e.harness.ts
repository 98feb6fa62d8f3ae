// Real processes and real HTTP for the end-to-end tests. They assume `npm run build` has run.
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type JsonObject, type TaskInfoJson } from '@robot-mcp-kit/core';
import { type EventReceiver, type EventReceiverOptions, expressEventReceiver } from '@robot-mcp-kit/receiver';
import { listeningUrl, type Resources, type Spawned, spawnNode } from '../../../test/support/processes.js';
import { waitFor } from '../../../test/support/until.js';

// The generic helpers live in test/support; re-exported for the tests that import them from here.
export {
  exitOf,
  freePort,
  requireBuilt,
  Resources,
  type Spawned,
  spawnNode,
} from '../../../test/support/processes.js';
export { waitFor } from '../../../test/support/until.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SLEEPER_MAIN = resolve(root, 'examples/sleeper/dist/main.js');
export const RECEIVER_MAIN = resolve(root, 'examples/chat-app-receiver/dist/main.js');
export const EVENTS_PATH = '/api/agent/events';
export const SECRET = 'e2e-secret-3f6c0a9d-0123456789abcdef';

/** The sleeper over streamable HTTP on `port` (default: a free one), once it logs its URL. */
export async function startSleeper(
  resources: Resources,
  env: Record<string, string>,
  port = 0,
): Promise<Spawned & { url: string }> {
  const sleeper = spawnNode(resources, SLEEPER_MAIN, {
    MCP_TRANSPORT: 'streamable-http',
    MCP_PORT: String(port),
    ...env,
  });
  return { ...sleeper, url: await listeningUrl(sleeper) };
}

export async function connectClient(resources: Resources, url: string): Promise<Client> {
  const client = new Client({ name: 'e2e-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  resources.onCleanup(() => client.close());
  return client;
}

/** Starts `sleep_task` and returns its task_id. */
export async function startSleep(client: Client, args: JsonObject): Promise<string> {
  const result = (await client.callTool({ name: 'sleep_task', arguments: args })) as CallToolResult;
  expectNoError(result);
  return (result.structuredContent as { task_id: string }).task_id;
}

export async function getTask(client: Client, taskId: string): Promise<TaskInfoJson> {
  const result = (await client.callTool({
    name: 'get_task',
    arguments: { task_id: taskId },
  })) as CallToolResult;
  expectNoError(result);
  return JSON.parse((result.content[0] as { text: string }).text) as TaskInfoJson;
}

/** Polls `get_task` until the task is no longer running. */
export async function waitUntilFinished(client: Client, taskId: string): Promise<TaskInfoJson> {
  let last: TaskInfoJson | undefined;
  return waitFor(
    `task ${taskId} to finish`,
    async () => {
      last = await getTask(client, taskId);
      return last.state === 'running' ? undefined : last;
    },
    20_000,
  );
}

/** Cancels a task the test held open (cancel emits no terminal event). */
export async function cancelTask(client: Client, taskId: string): Promise<void> {
  const result = (await client.callTool({
    name: 'cancel_task',
    arguments: { task_id: taskId },
  })) as CallToolResult;
  expectNoError(result);
}

function expectNoError(result: CallToolResult): void {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
}

/** An Express app with the receiver at POST /api/agent/events, on 127.0.0.1. */
export interface RunningReceiver {
  readonly url: string;
  readonly port: number;
  readonly receiver: EventReceiver;
  /** Stops intake and the HTTP server, closing open connections (a receiver that goes away). */
  stop(): Promise<void>;
}

export async function startReceiver(
  resources: Resources,
  options: EventReceiverOptions,
  port = 0,
): Promise<RunningReceiver> {
  const handler = expressEventReceiver(options);
  const server: Server = createServer(express().post(EVENTS_PATH, handler));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen());
  });
  const bound = (server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await handler.receiver.close();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    })());
  resources.onCleanup(stop);
  return { url: `http://127.0.0.1:${bound}${EVENTS_PATH}`, port: bound, receiver: handler.receiver, stop };
}

/** 1..n */
export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
