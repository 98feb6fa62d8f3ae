import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

// The built navigation example over stdio (needs `npm run build`): navigate_to has maxConcurrent 1
// and preempt. Four calls in one write must leave one drive running, never three.
const MAIN = fileURLToPath(new URL('../../examples/navigation/dist/main.js', import.meta.url));
let child: ChildProcess | undefined;

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
});
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

type Message = { id?: number; result?: { content?: { text: string }[] } };

describe('navigate_to x4 in one stdio write (maxConcurrent 1 + preempt)', () => {
  it('runs one drive at a time: the last call drives, the others are cancelled', async () => {
    child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const messages: Message[] = [];
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) messages.push(JSON.parse(line) as Message);
    });
    const answer = async (id: number): Promise<Message> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const found = messages.find((m) => m.id === id);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no answer ${id}: ${JSON.stringify(messages).slice(0, 500)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const call = (id: number, name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const goals = ['kitchen', 'lab', 'dock', 'kitchen'];
    child.stdin!.write(
      [
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'pipe', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        ...goals.map((goal, i) => call(i + 1, 'navigate_to', { goal })),
      ]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    );
    const started = await Promise.all(goals.map((_, i) => answer(i + 1)));
    const ids = started.map(
      (m) => (JSON.parse(m.result?.content?.[0]?.text ?? '{}') as { task_id: string }).task_id,
    );
    child.stdin!.write(`${JSON.stringify(call(10, 'list_tasks', {}))}\n`);
    const listed = JSON.parse((await answer(10)).result?.content?.[0]?.text ?? '{}') as {
      tasks: { task_id: string; state: string }[];
    };
    const stateOf = new Map(listed.tasks.map((t) => [t.task_id, t.state]));
    expect(ids.map((id) => stateOf.get(id))).toEqual(['cancelled', 'cancelled', 'cancelled', 'running']);
    child.stdin!.write(`${JSON.stringify(call(11, 'get_pose', {}))}\n`);
    const pose = JSON.parse((await answer(11)).result?.content?.[0]?.text ?? '{}') as { task_id?: string };
    expect(pose.task_id).toBe(ids[3]);
  }, 60_000);
});
