import { type IncomingHttpHeaders, type IncomingMessage, type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type EventType, TaskEvent } from '@robot-mcp-kit/core';
import { type ManualClock } from '@robot-mcp-kit/core/testing';

/** One request as the test server saw it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The header names and values as sent (names in their case, in their order). */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** The body parsed as JSON (undefined if it is not JSON). */
  readonly json: Record<string, unknown> | undefined;
  /** Remote port of the client socket: the same value means the same keep-alive connection. */
  readonly clientPort: number;
}

/** How the test server answers; `hang` never answers (until the server closes). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';
export type ReplyFn = (request: ReceivedRequest, index: number) => Reply;

/** A real HTTP server on 127.0.0.1 with a random port that records every request. */
export class TestServer {
  readonly requests: ReceivedRequest[] = [];
  reply: ReplyFn;
  private readonly server: Server;

  private constructor(server: Server, reply: ReplyFn) {
    this.server = server;
    this.reply = reply;
  }

  static async start(reply: ReplyFn = () => ({ status: 204 })): Promise<TestServer> {
    const holder: { instance?: TestServer } = {};
    const server = createServer((req, res) => {
      void readBody(req).then((body) => {
        const received: ReceivedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body,
          json: tryJson(body),
          clientPort: req.socket.remotePort ?? 0,
        };
        const target = holder.instance!;
        const index = target.requests.length;
        target.requests.push(received);
        const answer = target.reply(received, index);
        if (answer === 'hang') return;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.instance = new TestServer(server, reply);
    return holder.instance;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/api/agent/events`;
  }

  /** Parsed bodies of the requests answered so far, optionally of one task. */
  bodies(taskId?: string): Record<string, unknown>[] {
    return this.requests
      .map((r) => r.json)
      .filter(
        (j): j is Record<string, unknown> =>
          j !== undefined && (taskId === undefined || j.task_id === taskId),
      );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function tryJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

// The one `until` and `turns` of the repository live in test/support/until.ts.
export { turns, until } from '../../../../test/support/until.js';

/** Advances a ManualClock to its next due timer (if any) and returns how far it moved. */
export async function advanceToNextTimer(clock: ManualClock): Promise<number> {
  const due = clock.nextDue();
  if (due === undefined) return 0;
  const step = Math.max(0, due - clock.now());
  await clock.advance(step);
  return step;
}

let counter = 0;

/** A valid TaskEvent; `seq` and `type` default to 1 / progress. */
export function makeEvent(
  taskId: string,
  seq = 1,
  type: EventType = 'progress',
  ts: Date = new Date(Date.UTC(2026, 0, 1)),
): TaskEvent {
  counter += 1;
  return TaskEvent.create({
    event_id: `evt-${counter.toString(16).padStart(8, '0')}`,
    task_id: taskId,
    server: 'navigation',
    tool: 'navigate_to',
    type,
    seq,
    ts,
    payload: type === 'task_done' ? { result: { ok: true } } : { percent: seq },
  });
}
