import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { EventPoster, TaskEvent, TaskManager, verify } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { InMemoryEventTransport } from '@robot-mcp-kit/core/testing';
import { KIT_ATTRIBUTES, KIT_METRICS } from '@robot-mcp-kit/core/telemetry';
import { TestTelemetry } from '../../../../test/support/otel.js';
import { until } from '../../../../test/support/until.js';

const otel = TestTelemetry.register();
const SECRET = 'delivery-spans-secret-0123456789';

/** A real receiver on 127.0.0.1 that answers 503 to the first `failFirst` POSTs, then 200. */
class FlakyReceiver {
  readonly posts: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];
  private server: Server | undefined;
  constructor(private failFirst: number) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = this.failFirst > 0 ? 503 : 200;
        this.failFirst -= 1;
        this.posts.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/events`;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const receivers: FlakyReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.stop();
});
afterAll(() => otel.disable());

async function setUp(failFirst: number) {
  const receiver = new FlakyReceiver(failFirst);
  receivers.push(receiver);
  const url = await receiver.start();
  const transport = new HttpEventTransport({ url, secret: SECRET, serverName: 'navigation' });
  const poster = new EventPoster({
    serverName: 'navigation',
    transport,
    retryDelaysMs: [20],
    retryEveryMs: 20,
  });
  const manager = new TaskManager({ serverName: 'navigation', poster });
  return { receiver, poster, manager };
}

describe('delivery spans', () => {
  it('each attempt is a child span of the task span, with attempt number, retry delay and traceparent', async () => {
    const { receiver, poster, manager } = await setUp(1);
    const info = manager.start('navigate_to', async () => ({ arrived: true }));
    await manager.whenStopped(info.task_id);
    expect(await poster.flush(20_000)).toBe(true);
    await until(() => otel.finished('send task_done').length === 2, 'two send spans');

    const task = otel
      .finished('task navigate_to')
      .find((s) => s.attributes[KIT_ATTRIBUTES.taskId] === info.task_id)!;
    const [first, second] = otel.finished('send task_done');
    for (const span of [first!, second!]) {
      expect(span.kind).toBe(SpanKind.PRODUCER);
      expect(span.spanContext().traceId).toBe(task.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(task.spanContext().spanId);
      expect(span.attributes).toMatchObject({
        [KIT_ATTRIBUTES.taskId]: info.task_id,
        [KIT_ATTRIBUTES.eventType]: 'task_done',
        [KIT_ATTRIBUTES.eventSeq]: 1,
      });
    }
    expect(first!.attributes).toMatchObject({
      [KIT_ATTRIBUTES.deliveryAttempt]: 1,
      [KIT_ATTRIBUTES.deliveryOutcome]: 'retry',
      [KIT_ATTRIBUTES.deliveryRetryDelay]: 0.02,
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(second!.attributes).toMatchObject({
      [KIT_ATTRIBUTES.deliveryAttempt]: 2,
      [KIT_ATTRIBUTES.deliveryOutcome]: 'delivered',
      'http.response.status_code': 200,
    });
    expect(second!.attributes[KIT_ATTRIBUTES.deliveryRetryDelay]).toBeUndefined();

    // each POST carries its own attempt's traceparent; the signed body is untouched
    expect(receiver.posts.map((p) => p.headers.traceparent)).toEqual([
      `00-${task.spanContext().traceId}-${first!.spanContext().spanId}-01`,
      `00-${task.spanContext().traceId}-${second!.spanContext().spanId}-01`,
    ]);
    for (const post of receiver.posts) {
      expect(
        verify(
          SECRET,
          String(post.headers['x-rvc-timestamp']),
          post.body,
          String(post.headers['x-rvc-signature']),
        ),
      ).toBe(true);
      expect(post.body).toBe(receiver.posts[0]!.body);
    }
    await manager.aclose();
  });

  it('counts attempts, failures and the queue', async () => {
    const attempts = (outcome: string) =>
      otel.sum(KIT_METRICS.deliveryAttempts.name, {
        [KIT_ATTRIBUTES.eventType]: 'progress',
        [KIT_ATTRIBUTES.deliveryOutcome]: outcome,
      });
    const failures = () =>
      otel.sum(KIT_METRICS.deliveryFailures.name, { [KIT_ATTRIBUTES.eventType]: 'progress' });
    const before = {
      retry: await attempts('retry'),
      delivered: await attempts('delivered'),
      failures: await failures(),
    };
    const queuedBefore = await otel.sum(KIT_METRICS.eventsQueued.name);

    const { poster, manager } = await setUp(2);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const info = manager.start('navigate_to', async (ctx) => {
      await ctx.progress({ percent: 10 });
      await gate;
      return {};
    });
    await until(
      async () => (await otel.sum(KIT_METRICS.eventsQueued.name)) === queuedBefore + 1,
      'one event queued',
    );
    release();
    await manager.whenStopped(info.task_id);
    expect(await poster.flush(20_000)).toBe(true);

    expect(await attempts('retry')).toBe(before.retry + 2);
    expect(await attempts('delivered')).toBe(before.delivered + 1);
    expect(await failures()).toBe(before.failures + 2);
    expect(await otel.sum(KIT_METRICS.eventsQueued.name)).toBe(queuedBefore);
    await manager.aclose();
  });

  it('counts dropped events by reason', async () => {
    const dropped = () => otel.sum(KIT_METRICS.eventsDropped.name, { [KIT_ATTRIBUTES.dropReason]: 'closed' });
    const before = await dropped();
    const { poster, manager } = await setUp(0);
    await poster.aclose();
    const info = manager.start('navigate_to', async () => ({}));
    await manager.whenStopped(info.task_id);
    expect(await dropped()).toBe(before + 1);
    await manager.aclose();
  });

  it('counts coalesced progress', async () => {
    const before = await otel.sum(KIT_METRICS.eventsCoalesced.name);
    const poster = new EventPoster({
      serverName: 'nav',
      transport: new InMemoryEventTransport(),
      maxQueue: 2,
    });
    for (let seq = 1; seq <= 5; seq += 1)
      poster.post(
        TaskEvent.create({
          event_id: randomUUID(),
          task_id: 'nav-00000a',
          server: 'nav',
          tool: 'go',
          type: 'progress',
          seq,
          ts: new Date(),
          payload: { percent: seq },
        }),
      );
    expect(await poster.flush(20_000)).toBe(true);
    expect(poster.stats.coalesced).toBeGreaterThan(0);
    expect(await otel.sum(KIT_METRICS.eventsCoalesced.name)).toBe(before + poster.stats.coalesced);
    await poster.aclose();
  });
});
