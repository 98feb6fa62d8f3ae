import { afterEach, describe, expect, it } from '@jest/globals';
import { ArmServer, openGate, type Rig, rig, until } from '../features/native-tasks/native-tasks.fixtures.js';
import { VERSION, WireClient } from '../../../../test/support/mcp-2026.wire-client.js';
import { TaskResourceCatalog } from '../../src/task-views/task-resources.catalog.js';

/*
 * `tasks://` resources on the MCP 2026-07-28 leg, and task changes pushed on `subscriptions/listen`
 * (the listen request and its SSE stream are written from the 2026-07-28 text, not the SDK).
 */
let r: Rig | undefined;
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const abort of aborts.splice(0)) abort.abort();
  await r?.close();
  r = undefined;
});

const arm = (): ArmServer => r!.app.instance as ArmServer;

interface Listened {
  messages: { method?: string; params?: Record<string, unknown> }[];
}

/** Opens a `subscriptions/listen` stream and collects its notifications until the test ends. */
async function listen(url: string, notifications: Record<string, unknown>): Promise<Listened> {
  const abort = new AbortController();
  aborts.push(abort);
  const response = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'listen-wire', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const listened: Listened = { messages: [] };
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += value;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('data:')) listened.messages.push(JSON.parse(line.slice(5)) as never);
      }
    }
  })();
  return listened;
}

function updatedUris(listened: Listened): unknown[] {
  return listened.messages
    .filter((m) => m.method === 'notifications/resources/updated')
    .map((m) => m.params?.uri);
}

describe('tasks:// resources on the MCP 2026-07-28 leg', () => {
  it('lists and reads the same TaskInfo JSON as the 2025 sessions', async () => {
    r = await rig(ArmServer, { http: true });
    const client = new WireClient(r.url!, true);
    const discovered = await client.result('server/discover');
    expect(discovered.capabilities).toMatchObject({ resources: { subscribe: true, listChanged: true } });
    const created = await client.result('tools/call', { name: 'move', arguments: { steps: 1 } });
    const kitId = (created._meta as Record<string, string>)['robot-mcp-kit/task_id']!;

    const listed = await client.result('resources/list');
    expect((listed.resources as { uri: string }[]).map((res) => res.uri)).toEqual([
      'tasks://running',
      `tasks://${kitId}`,
    ]);
    const templates = await client.result('resources/templates/list');
    expect(templates.resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'tasks://{task_id}' }),
    ]);
    // The 2025 sessions' catalog, installed with the v2 SDK: the same entries on both legs.
    const catalog = new TaskResourceCatalog(r.app.taskManager);
    expect(listed.resources).toEqual(await catalog.list());
    expect(templates.resourceTemplates).toEqual(catalog.templates());
    const read = await client.result('resources/read', { uri: `tasks://${kitId}` });
    const [content] = read.contents as { uri: string; mimeType: string; text: string }[];
    expect(content).toMatchObject({ uri: `tasks://${kitId}`, mimeType: 'application/json' });
    expect(JSON.parse(content!.text)).toEqual(
      JSON.parse(JSON.stringify(r.app.taskManager.get(kitId)!.toJSON())) as unknown,
    );
    const running = await client.result('resources/read', { uri: 'tasks://running' });
    expect(JSON.parse((running.contents as { text: string }[])[0]!.text)).toMatchObject({
      tasks: [{ task_id: kitId, state: 'running' }],
    });
    const missing = await client.request('resources/read', { uri: 'tasks://arm-ffffff' });
    expect(missing.error?.message).toMatch(/tasks:\/\/arm-ffffff not found/);
    await openGate(arm());
  });

  it('pushes tasks://<task_id> changes on subscriptions/listen to the listeners that named it', async () => {
    r = await rig(ArmServer, { http: true });
    const client = new WireClient(r.url!, true);
    const created = await client.result('tools/call', { name: 'move', arguments: { steps: 2 } });
    const kitId = (created._meta as Record<string, string>)['robot-mcp-kit/task_id']!;
    const following = await listen(r.url!, { resourceSubscriptions: [`tasks://${kitId}`] });
    const other = await listen(r.url!, { resourceSubscriptions: ['tasks://arm-000000'] });
    await until(() => following.messages.length > 0 && other.messages.length > 0, 20_000);
    expect(following.messages[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: [`tasks://${kitId}`] } },
    });

    await openGate(arm());
    await until(() => updatedUris(following).includes(`tasks://${kitId}`), 20_000);
    await client.result('tasks/cancel', { taskId: created.taskId });
    const before = updatedUris(following).length;
    await until(() => updatedUris(following).length > before, 20_000);
    const read = await client.result('resources/read', { uri: `tasks://${kitId}` });
    expect(JSON.parse((read.contents as { text: string }[])[0]!.text)).toMatchObject({ state: 'cancelled' });
    expect(updatedUris(other)).toEqual([]);
  });
});
