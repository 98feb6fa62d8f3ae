import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { FleetServer } from '../fixtures/fleet.server.js';

/**
 * `node --expose-gc bench/dist/profile/heap-per-task.profile.js [tasks] [--top=N]`: starts `tasks`
 * patrols (default 2,000) that sleep long enough to stay running, and reports what each running
 * task retains: heap bytes after a full GC, and a heap-snapshot diff (0 running vs N running) by
 * constructor, as self bytes and counts per task. `KEEP_SNAPSHOTS=1` keeps both snapshot files.
 */
const args = process.argv.slice(2);
const tasks = Number(args.find((a) => !a.startsWith('--')) ?? 2000);
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 30);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count per "type:name" of one heap snapshot file. */
function census(file: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const nodes = snap.nodes;
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt] ?? 0] ?? '?';
    const raw = snap.strings[nodes[i + nameAt] ?? 0] ?? '';
    const name = type.includes('string') ? '' : raw;
    const key = `${type}:${name.slice(0, 60)}`;
    const entry = out.get(key) ?? { size: 0, count: 0 };
    entry.size += nodes[i + sizeAt] ?? 0;
    entry.count += 1;
    out.set(key, entry);
  }
  return out;
}

/** Writes a heap snapshot after a full GC; read only once both are written (reading allocates). */
function snapshot(label: string): string {
  gc?.();
  gc?.();
  return writeHeapSnapshot(join(tmpdir(), `heap-per-task-${process.pid}-${label}.heapsnapshot`));
}

function censusOnce(file: string): Map<string, { size: number; count: number }> {
  try {
    return census(file);
  } finally {
    if (process.env.KEEP_SNAPSHOTS) process.stderr.write(`kept ${file}\n`);
    else rmSync(file, { force: true });
  }
}

const app = bootstrap(FleetServer, {
  eventTransport: new AckEventTransport(),
  env: {},
  logger: silentLogger,
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await app.connect(serverSide);
const client = new Client({ name: 'profile', version: '1.0.0' });
await client.connect(clientSide);
// One task first, so lazily built shared structures are not charged to the N tasks.
await client.callTool({ name: 'patrol', arguments: { step_ms: 0 } });
while (app.taskManager.runningCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
await app.poster.flush(10_000);
const beforeFile = snapshot('before');
gc();
const heapBefore = process.memoryUsage().heapUsed;
let next = 0;
const worker = async () => {
  while (next < tasks) {
    next += 1;
    await client.callTool({ name: 'patrol', arguments: { step_ms: 10_000 } });
  }
};
await Promise.all(Array.from({ length: 64 }, worker));
gc();
gc();
const heapAfter = process.memoryUsage().heapUsed;
const afterFile = snapshot('after');
const running = app.taskManager.runningCount;
const before = censusOnce(beforeFile);
const after = censusOnce(afterFile);
const rows = [...after].map(([key, a]) => {
  const b = before.get(key) ?? { size: 0, count: 0 };
  return { key, bytes: (a.size - b.size) / running, count: (a.count - b.count) / running };
});
rows.sort((x, y) => y.bytes - x.bytes);
const total = rows.reduce((n, r) => n + r.bytes, 0);
process.stdout.write(
  `${running} running tasks: heap after GC ${((heapAfter - heapBefore) / running).toFixed(0)} B/task, ` +
    `snapshot diff ${total.toFixed(0)} B/task\n`,
);
for (const row of rows.slice(0, top)) {
  process.stdout.write(
    `${row.bytes.toFixed(1).padStart(9)} B ${row.count.toFixed(2).padStart(7)}  ${row.key}\n`,
  );
}
process.exit(0);
