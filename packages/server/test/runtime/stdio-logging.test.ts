import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { exitOf, requireBuilt } from '../../../../test/support/processes.js';
import { until } from '../fixtures/harness.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const SLEEPER = resolve(root, 'examples/sleeper/dist/main.js');

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exitOf(child);
  }
});

type Json = Record<string, unknown>;
const linesOf = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');

/** The built sleeper on stdio at LOG_LEVEL=debug, spoken to with raw JSON-RPC lines. */
function sleeperOnStdio(): {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  call: (id: number, method: string, params: Json) => Promise<Json>;
} {
  requireBuilt(SLEEPER);
  const child = spawn(process.execPath, [SLEEPER], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'debug', MCP_TRANSPORT: 'stdio' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const replyTo = (id: number): Json | undefined =>
    linesOf(out)
      .map((line) => JSON.parse(line) as Json)
      .find((message) => message.id === id);
  const call = async (id: number, method: string, params: Json): Promise<Json> => {
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    await until(() => replyTo(id) !== undefined, 30_000);
    return replyTo(id)!;
  };
  return { child, stdout: () => out, stderr: () => err, call };
}

const toolJson = (reply: Json): Json =>
  JSON.parse((reply.result as { content: { text: string }[] }).content[0]!.text) as Json;

describe('logs on stdio (built sleeper, LOG_LEVEL=debug)', () => {
  it('go to stderr as JSON lines; stdout carries nothing but the MCP stream', async () => {
    const { child, stdout, stderr, call } = sleeperOnStdio();
    await call(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'stdio-logging', version: '1' },
    });
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const started = toolJson(
      await call(2, 'tools/call', { name: 'sleep_task', arguments: { duration_s: 0.1 } }),
    );
    const taskId = String(started.task_id);
    let id = 3;
    await until(async () => {
      id += 1;
      const info = toolJson(
        await call(id, 'tools/call', { name: 'get_task', arguments: { task_id: taskId } }),
      );
      return info.state === 'succeeded';
    }, 30_000);
    // the debug line of each event of the task (no callback URL: events are logged, not pushed)
    await until(() => stderr().includes('"type":"task_done"'), 30_000);
    child.stdin!.end();
    await exitOf(child);

    const out = linesOf(stdout()).map((line) => JSON.parse(line) as Json);
    expect(out.length).toBeGreaterThanOrEqual(id);
    for (const message of out) expect(message.jsonrpc).toBe('2.0');

    const logs = linesOf(stderr()).map((line) => JSON.parse(line) as Json);
    for (const line of logs) {
      expect(line).toEqual(
        expect.objectContaining({
          level: expect.any(String),
          message: expect.any(String),
          server: 'sleeper',
        }),
      );
      expect(line.jsonrpc).toBeUndefined();
    }
    const events = logs.filter((line) => line.level === 'debug' && line.task_id === taskId);
    expect(events.map((line) => line.type)).toEqual(expect.arrayContaining(['progress', 'task_done']));
  }, 90_000);
});
