import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { until } from '../fixtures/harness.js';

/*
 * SEP-2663 over stdio, end to end against the built sleeper as a child process. The client below is
 * written from the 2026-07-28 stdio binding and the SEP text: newline-delimited JSON-RPC, every
 * request carrying the per-request envelope in `_meta`, the extension declared in the per-request
 * client capabilities, no initialize.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const SLEEPER = resolve(root, 'examples/sleeper/dist/main.js');
const ENV = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', MCP_TRANSPORT: 'stdio' };
const VERSION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

interface Reply {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

class StdioWireClient {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private readonly child: ChildProcessWithoutNullStreams;
  /** Every notification received, in order. */
  readonly notifications: { method: string; params?: Record<string, unknown> }[] = [];

  constructor() {
    this.child = spawn(process.execPath, [SLEEPER], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.resume();
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Reply & { method?: string; params?: Record<string, unknown> };
      if (typeof message.id !== 'number') {
        if (message.method) this.notifications.push({ method: message.method, params: message.params });
        return;
      }
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    });
  }

  request(method: string, params: Record<string, unknown>, declareTasks = true): Promise<Reply> {
    const id = this.nextId++;
    return this.send(id, method, params, declareTasks);
  }

  /** Sends a request without waiting for its answer (a `subscriptions/listen` is answered at its end). */
  open(method: string, params: Record<string, unknown>): void {
    void this.send(this.nextId++, method, params, false, 0).catch(() => undefined);
  }

  private send(
    id: number,
    method: string,
    params: Record<string, unknown>,
    declareTasks: boolean,
    timeoutMs = 30_000,
  ): Promise<Reply> {
    const message = {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'sep-2663-stdio', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': declareTasks ? { extensions: { [TASKS]: {} } } : {},
        },
      },
    };
    return new Promise<Reply>((resolveReply, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => reject(new Error(`no reply to ${method} in time`)), timeoutMs)
          : undefined;
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        resolveReply(reply);
      });
      this.child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  async result(method: string, params: Record<string, unknown> = {}, declareTasks = true) {
    const reply = await this.request(method, params, declareTasks);
    if (!reply.result) throw new Error(`${method} failed: ${JSON.stringify(reply)}`);
    return reply.result;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.stdin.end();
    await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000))]);
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

const clients: StdioWireClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function connect(): StdioWireClient {
  const client = new StdioWireClient();
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}

async function pollUntil(client: StdioWireClient, taskId: unknown, done: (status: unknown) => boolean) {
  let polled: Record<string, unknown> = {};
  await until(async () => {
    polled = await client.result('tasks/get', { taskId });
    return done(polled.status);
  }, 30_000);
  return polled;
}

describe('SEP-2663 over stdio (built sleeper, a client written from the SEP)', () => {
  it('discovers the extension, runs a task to completion with the result inlined', async () => {
    const client = connect();
    const discovered = await client.result('server/discover');
    expect(discovered.supportedVersions).toContain(VERSION);
    expect(discovered.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });

    const created = await client.result('tools/call', { name: 'sleep_task', arguments: { duration_s: 0.3 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.ttlMs).toEqual(expect.any(Number));
    expect(created.pollIntervalMs).toEqual(expect.any(Number));
    expect(created).not.toHaveProperty('content');
    const polled = await pollUntil(client, created.taskId, (status) => status !== 'working');
    expect(polled).toMatchObject({ status: 'completed', result: { structuredContent: { slept_s: 0.3 } } });
    expect(JSON.parse(textOf(polled.result))).toEqual({ slept_s: 0.3 });
  }, 60_000);

  it('cancels a running task with tasks/cancel; get_task agrees', async () => {
    const client = connect();
    const created = await client.result('tools/call', { name: 'sleep_task', arguments: { duration_s: 600 } });
    const kitId = (created._meta as Record<string, string>)['robot-mcp-kit/task_id'];
    expect(await client.result('tasks/cancel', { taskId: created.taskId })).toMatchObject({
      resultType: 'complete',
    });
    const polled = await pollUntil(client, created.taskId, (status) => status !== 'working');
    expect(polled.status).toBe('cancelled');
    const viewed = await client.result('tools/call', { name: 'get_task', arguments: { task_id: kitId } });
    expect(JSON.parse(textOf(viewed))).toMatchObject({ task_id: kitId, state: 'cancelled' });
  }, 60_000);

  it('gives a client without the extension the plain task_id result and -32021 on tasks/get', async () => {
    const client = connect();
    const plain = await client.result(
      'tools/call',
      { name: 'sleep_task', arguments: { duration_s: 0.2 } },
      false,
    );
    expect(plain.resultType).not.toBe('task');
    expect(JSON.parse(textOf(plain))).toMatchObject({ state: 'running' });
    const refused = await client.request('tasks/get', { taskId: 'whatever' }, false);
    expect(refused.error).toMatchObject({ code: -32021 });
  }, 60_000);

  it('pushes tasks://<task_id> changes on subscriptions/listen', async () => {
    const client = connect();
    const created = await client.result('tools/call', { name: 'sleep_task', arguments: { duration_s: 600 } });
    const uri = `tasks://${(created._meta as Record<string, string>)['robot-mcp-kit/task_id']}`;
    client.open('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } });
    await until(
      () => client.notifications.some((n) => n.method === 'notifications/subscriptions/acknowledged'),
      30_000,
    );
    await client.result('tasks/cancel', { taskId: created.taskId });
    await until(
      () =>
        client.notifications.some(
          (n) => n.method === 'notifications/resources/updated' && n.params?.uri === uri,
        ),
      30_000,
    );
    const read = await client.result('resources/read', { uri });
    expect(JSON.parse((read.contents as { text: string }[])[0]!.text)).toMatchObject({ state: 'cancelled' });
  }, 60_000);
});
