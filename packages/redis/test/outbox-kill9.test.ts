import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { parseTaskEvent, type TaskEvent, verify } from '@robot-mcp-kit/core';
import { freePort, reap, requireBuilt, Resources, spawnNode } from '../../../test/support/processes.js';
import { until } from '../../../test/support/until.js';
import { connectAdmin, deleteKeys, SHARED_REDIS_URL } from './redis-test.helpers.js';

const SECRET = 'outbox-kill9-secret-0123456789abcdef';
const REPLICA = join(import.meta.dirname, 'fixtures', 'outbox-replica.mjs');
const BUILT = [
  join(import.meta.dirname, '..', 'dist', 'server', 'index.js'),
  join(import.meta.dirname, '..', '..', 'core', 'dist', 'index.js'),
];

interface Written {
  readonly event_id: string;
  readonly task_id: string;
  readonly seq: number;
}

/** An events endpoint on a fixed port that answers 500 while `down`, and records what it acknowledged. */
class FlakyReceiver {
  down = true;
  readonly acknowledged: { event: TaskEvent; body: string }[] = [];
  private server: Server | undefined;

  async start(port: number): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const ok = verify(
          SECRET,
          String(req.headers['x-rvc-timestamp']),
          body,
          String(req.headers['x-rvc-signature']),
        );
        if (this.down || !ok) {
          res.writeHead(this.down ? 500 : 401).end();
          return;
        }
        this.acknowledged.push({ event: parseTaskEvent(body), body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function writtenOf(stdout: string): Written[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('written '))
    .map((line) => JSON.parse(line.slice('written '.length)) as Written);
}

describe('durable event outbox across kill -9 (Redis Streams, real processes)', () => {
  const resources = new Resources();
  const prefix = `rmk-test:${randomUUID()}:`;

  afterEach(async () => {
    await resources.cleanup();
    const admin = await connectAdmin();
    await deleteKeys(admin, prefix);
    await admin.close();
  });

  it('every event acknowledged as written before kill -9 reaches the receiver via the restarted replica, in seq order per task', async () => {
    requireBuilt(...BUILT);
    const port = await freePort();
    const receiver = new FlakyReceiver();
    resources.onCleanup(() => receiver.close());
    await receiver.start(port); // up, but answering 500: an outage
    const env = {
      REDIS_URL: SHARED_REDIS_URL,
      KEY_PREFIX: prefix,
      CLAIM_IDLE_MS: '1000',
      RVC_CALLBACK_URL: `http://127.0.0.1:${port}/api/agent/events`,
      RVC_EVENT_SECRET: SECRET,
    };

    const first = spawnNode(resources, REPLICA, {
      ...env,
      REPLICA_ID: 'replica-a',
      TASKS: '4',
      PROGRESS: '5',
    });
    await until(
      () => first.stdout().includes('all-written') || first.exited() !== undefined,
      'replica A to write its events',
      60_000,
    );
    expect(first.exited()).toBeUndefined();
    const written = writtenOf(first.stdout());
    expect(written).toHaveLength(20);
    await reap(first.child, 'SIGKILL'); // kill -9 mid-outage: nothing was delivered
    expect(receiver.acknowledged).toHaveLength(0);

    // the restarted replica (another name: it takes over after the idle time) with the receiver back
    const second = spawnNode(resources, REPLICA, { ...env, REPLICA_ID: 'replica-b', TASKS: '0' });
    await until(
      () => second.stdout().includes('ready') || second.exited() !== undefined,
      'replica B to start',
      60_000,
    );
    receiver.down = false;
    const wanted = new Set(written.map((w) => w.event_id));
    await until(
      () => [...wanted].every((id) => receiver.acknowledged.some((a) => a.event.event_id === id)),
      'every written event delivered after the takeover',
      60_000,
    );

    // per task, the first delivery of each event comes in seq order; a duplicate repeats the same body
    const firstBodies = new Map<string, string>();
    const order = new Map<string, number[]>();
    for (const { event, body } of receiver.acknowledged) {
      const seen = firstBodies.get(event.event_id);
      if (seen !== undefined) {
        expect(body).toBe(seen);
        continue;
      }
      firstBodies.set(event.event_id, body);
      order.set(event.task_id, [...(order.get(event.task_id) ?? []), event.seq]);
    }
    for (const w of written) expect(order.get(w.task_id)).toContain(w.seq);
    for (const seqs of order.values()) expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(order.size).toBe(4);

    // and the stream is emptied once everything is delivered
    const admin = await connectAdmin();
    try {
      await until(
        async () => (await admin.xLen(`${prefix}{sleeper}`)) === 0,
        'the outbox stream emptied',
        60_000,
      );
    } finally {
      await admin.close();
    }
  });
});
