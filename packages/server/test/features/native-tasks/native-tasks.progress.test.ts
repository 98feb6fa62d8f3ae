import { afterEach, describe, expect, it } from '@jest/globals';
import {
  type JSONRPCMessage,
  type Progress,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import { wirePeer } from '../../fixtures/harness.js';
import { ArmServer, createTask, openGate, type Rig, rig, until } from './native-tasks.fixtures.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const arm = (): ArmServer => r!.app.instance as ArmServer;

const wire = () => wirePeer(r!.app);

const progressOf = (seen: JSONRPCMessage[]) =>
  seen
    .filter((m) => 'method' in m && m.method === 'notifications/progress')
    .map((m) => (m as { params: unknown }).params);

describe('notifications/progress', () => {
  it('follows a task-augmented call: percent of 100, the message, and the related task', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const progress: Progress[] = [];
    const created = await createTask(
      client,
      'move',
      { steps: 2, label: 'reach' },
      { onprogress: (p) => progress.push(p) },
    );
    await openGate(arm());
    await openGate(arm());
    await until(() => progress.length === 2);
    expect(progress).toEqual([
      {
        progress: 50,
        total: 100,
        message: 'reach 1/2',
        _meta: { [RELATED_TASK_META_KEY]: { taskId: created.taskId } },
      },
      {
        progress: 100,
        total: 100,
        message: 'reach 2/2',
        _meta: { [RELATED_TASK_META_KEY]: { taskId: created.taskId } },
      },
    ]);
  });

  it('counts progress without a percent', async () => {
    r = await rig(ArmServer);
    const { client } = await r.peer();
    const progress: Progress[] = [];
    await createTask(client, 'count', { items: 2 }, { onprogress: (p) => progress.push(p) });
    await openGate(arm());
    await openGate(arm());
    await until(() => progress.length === 2);
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, undefined, '{"item":1}'],
      [2, undefined, '{"item":2}'],
    ]);
  });

  it('sends no progress after the response of a plain call that carries a progressToken', async () => {
    r = await rig(ArmServer);
    const { send, seen } = await wire();
    await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'move', arguments: { steps: 2 }, _meta: { progressToken: 'tok-1' } },
    });
    await until(() => seen.some((m) => 'id' in m && m.id === 1));
    const response = seen.find((m) => 'id' in m && m.id === 1) as unknown as {
      result: { structuredContent: { state: string } };
    };
    expect(response.result.structuredContent.state).toBe('running');
    await openGate(arm());
    await openGate(arm());
    await until(() => r!.app.taskManager.list(['succeeded']).length === 1);
    await r.app.poster.flush(1000);
    expect(progressOf(seen)).toEqual([]);
  });

  it('sends none for a call without a progressToken', async () => {
    r = await rig(ArmServer);
    const { send, seen } = await wire();
    await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'move', arguments: { steps: 1 } },
    });
    await openGate(arm());
    await until(() => r!.app.taskManager.list(['succeeded']).length === 1);
    await r.app.poster.flush(1000);
    expect(progressOf(seen)).toEqual([]);
  });

  it('sends none when turned off with nativeTasks.progressNotifications: false', async () => {
    r = await rig(ArmServer, { nativeTasks: { progressNotifications: false } });
    const { send, seen } = await wire();
    await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'move', arguments: { steps: 1 }, _meta: { progressToken: 7 } },
    });
    await openGate(arm());
    await until(() => r!.app.taskManager.list(['succeeded']).length === 1);
    await r.app.poster.flush(1000);
    expect(progressOf(seen)).toEqual([]);
  });
});
