import { afterEach, describe, expect, it } from '@jest/globals';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { BoundedEventStore } from '@robot-mcp-kit/server/advanced';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { until } from '../features/fixtures/multi-client.js';
import { initializeBody, MCP_POST_HEADERS } from './raw-http.js';

const note = (n: number, pad = ''): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { n, pad },
});

describe('BoundedEventStore', () => {
  it('replays the events of one stream after an id', async () => {
    const store = new BoundedEventStore(10, 10_000);
    const a1 = await store.storeEvent('A', note(1));
    await store.storeEvent('B', note(2));
    await store.storeEvent('A', note(3));
    await store.storeEvent('A', note(4));
    const sent: [string, JSONRPCMessage][] = [];
    const stream = await store.replayEventsAfter(a1, { send: async (id, m) => void sent.push([id, m]) });
    expect(stream).toBe('A');
    expect(sent.map(([, m]) => (m as unknown as { params: { n: number } }).params.n)).toEqual([3, 4]);
    expect(sent.every(([id]) => id.endsWith('_A'))).toBe(true);
    expect(await store.getStreamIdForEventId(a1)).toBe('A');
    await expect(store.replayEventsAfter('nonsense', { send: async () => undefined })).rejects.toThrow(
      /not an event id/,
    );
  });

  it('is bounded in count and in bytes; a dropped id resumes with the oldest event held', async () => {
    const byCount = new BoundedEventStore(3, 1_000_000);
    const first = await byCount.storeEvent('S', note(0));
    for (let n = 1; n < 10; n += 1) await byCount.storeEvent('S', note(n));
    expect(byCount.size).toBe(3);
    const sent: number[] = [];
    await byCount.replayEventsAfter(first, {
      send: async (_id, m) => void sent.push((m as unknown as { params: { n: number } }).params.n),
    });
    expect(sent).toEqual([7, 8, 9]);

    const bySize = new BoundedEventStore(1000, 2_000);
    for (let n = 0; n < 50; n += 1) await bySize.storeEvent('S', note(n, 'x'.repeat(300)));
    expect(bySize.byteSize).toBeLessThanOrEqual(2_000);
    expect(bySize.size).toBeLessThan(10);
    await bySize.storeEvent('S', note(99, 'y'.repeat(5_000))); // larger than the bound: not kept
    expect(bySize.byteSize).toBeLessThanOrEqual(2_000);
  });
});

/** Reads SSE events from a fetch body until `done` says so. */
async function readEvents(
  res: Response,
  done: (events: { id?: string; retry?: string; data: string }[]) => boolean,
): Promise<{ id?: string; retry?: string; data: string }[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: { id?: string; retry?: string; data: string }[] = [];
  while (!done(events)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: { id?: string; retry?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'retry') event.retry = value;
        else if (field === 'data') event.data += value;
      }
      events.push(event);
    }
  }
  await reader.cancel().catch(() => undefined);
  return events;
}

let app: RobotMcpApp | undefined;
afterEach(async () => {
  await app?.close({ timeoutMs: 500 });
  app = undefined;
});

describe('resumable streams on streamable HTTP (raw HTTP client)', () => {
  it('primes POST streams (id + retry), puts ids on GET-stream events and replays missed ones after Last-Event-ID', async () => {
    app = bootstrap(ArmServer, {
      env: {},
      logger: new MemoryLogger(),
      eventTransport: new InMemoryEventTransport(),
      transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
      resourceUpdateIntervalMs: 0, // updates go out at once, so the missed one is stored before the resume
    });
    const { url } = await app.listen();
    const init = await fetch(url!, {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: initializeBody('2025-11-25'),
    });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    const initEvents = await readEvents(init, (e) => e.some((x) => x.data.includes('"result"')));
    // the POST stream starts with a priming event: an id, the retry interval, empty data
    expect(initEvents[0]).toEqual({ id: expect.stringMatching(/^\d+_/), retry: '1000', data: '' });
    const headers = { ...MCP_POST_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const post = async (body: object) => {
      const res = await fetch(url!, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.headers.get('content-type')?.includes('text/event-stream')) {
        await readEvents(res, (e) =>
          e.some((x) => x.data.includes('"result"') || x.data.includes('"error"')),
        );
      } else await res.text();
      return res.status;
    };
    expect(await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(202);

    // the standalone GET stream carries the resource updates, each with an event id
    expect(
      await post({
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/subscribe',
        params: { uri: 'tasks://running' },
      }),
    ).toBe(200);
    const getHeaders = {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    };
    const controller = new AbortController();
    const get = await fetch(url!, { headers: getHeaders, signal: controller.signal });
    expect(get.status).toBe(200);
    const started = post({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'watch_people', arguments: {} },
    });
    const live = await readEvents(get, (e) => e.some((x) => x.data.includes('resources/updated')));
    expect(await started).toBe(200);
    const seen = live.find((x) => x.data.includes('resources/updated'))!;
    expect(seen.id).toMatch(/^\d+__GET_stream$/);
    controller.abort(); // the client drops the stream

    // while no GET stream is open, the task is cancelled: its resource update is kept for replay
    const [taskId] = app.taskManager.list(['running']).map((t) => t.task_id);
    expect(
      await post({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'cancel_task', arguments: { task_id: taskId } },
      }),
    ).toBe(200);
    await until(() => app!.taskManager.runningCount === 0);

    const resumed = await fetch(url!, {
      headers: { ...getHeaders, 'last-event-id': seen.id! },
      signal: AbortSignal.timeout(15_000),
    });
    expect(resumed.status).toBe(200);
    const replayed = await readEvents(resumed, (e) => e.some((x) => x.data.includes('resources/updated')));
    const update = replayed.find((x) => x.data.includes('resources/updated'))!;
    expect(JSON.parse(update.data)).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'tasks://running' },
    });
    expect(update.id).toMatch(/^\d+__GET_stream$/);
    expect(Number(update.id!.split('_')[0])).toBeGreaterThan(Number(seen.id!.split('_')[0]));
  });
});
