import { afterEach, describe, expect, it } from '@jest/globals';
import { type IncomingHttpHeaders } from 'node:http';
import { trace } from '@opentelemetry/api';
import { EventPoster, TaskManager } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { type Running, SECRET, listen } from '../receiver-test.helpers.js';

// No OpenTelemetry SDK is registered in this file: the kit's tracing must cost nothing and change nothing.
const servers: Running[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('without an OpenTelemetry SDK', () => {
  it('tasks, delivery and the receiver run as before: no trace headers, no spans, no errors', async () => {
    const headers: IncomingHttpHeaders[] = [];
    const active: unknown[] = [];
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: () => {
        active.push(trace.getActiveSpan());
      },
    });
    const server = await listen((req, res) => {
      headers.push(req.headers);
      receiver.handler(req, res);
    });
    servers.push(server);
    const transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'sleeper' });
    const poster = new EventPoster({ serverName: 'sleeper', transport });
    const manager = new TaskManager({ serverName: 'sleeper', poster });
    const info = manager.start('sleep', async (ctx) => {
      await ctx.progress({ percent: 50 });
      return { slept: true };
    });
    expect(manager.traceContextOf(info.task_id)).toBeUndefined();
    await manager.whenStopped(info.task_id);
    expect(await poster.flush(20_000)).toBe(true);
    expect(poster.stats).toMatchObject({ delivered: 2, dropped: 0, retried: 0 });
    expect(receiver.stats()).toMatchObject({ delivered: 2, failed: 0 });
    expect(headers.map((h) => h.traceparent)).toEqual([undefined, undefined]);
    expect(active).toEqual([undefined, undefined]);
    await manager.aclose();
  });
});
