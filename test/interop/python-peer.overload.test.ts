import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { until } from '../support/until.js';
import { INTEROP_SECRET, type ReceiverGate, driveOverload } from './overload.driver.js';

// A Python peer that knows only the spec (§3.1) and the Python models (pydantic, extra keys
// ignored): python-peer.receiver.py, stdlib only. The kit's poster drives it under overload; it
// must accept every event (valid signatures, valid envelopes, TaskFailure built from task_failed
// payloads that carry the coalescing marker), see every task's end, and find no unnamed gap.

const SCRIPT = fileURLToPath(new URL('./python-peer.receiver.py', import.meta.url));
const PLAN = { batches: 6, tasksPerBatch: 12, progressPerTask: 6, maxQueue: 16 };
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const hasPython = !python.error && python.status === 0;
if (!hasPython) {
  console.warn(
    `python-peer interop suite skipped: python3 is not on PATH (${python.error?.message ?? python.status})`,
  );
}

interface PeerSummary {
  accepted: number;
  duplicates: number;
  bad_signature: number;
  invalid: number;
  statuses: Record<string, number>;
  terminals: Record<string, { seq: number; type: string }>;
  failures_parsed: number;
  terminals_with_marker: number;
  coalesced_named: number;
  gaps: number;
  gap_details: unknown[];
  errors: string[];
}

(hasPython ? describe : describe.skip)('overload against a Python stdlib receiver (spec-only peer)', () => {
  let child: ChildProcess | undefined;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rvc-python-peer-'));
    child = spawn('python3', [SCRIPT, INTEROP_SECRET, join(dir, 'summary.json')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let port: number | undefined;
    createInterface({ input: child.stdout! }).once('line', (line) => {
      port = (JSON.parse(line) as { port: number }).port;
    });
    await until(() => port !== undefined || child?.exitCode !== null, 'the Python peer to print its port');
    if (port === undefined) throw new Error(`the Python peer exited with code ${child.exitCode}`);
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const control = async (path: string, method = 'POST'): Promise<unknown> => {
    const response = await fetch(`${base}/control/${path}`, { method });
    if (!response.ok) throw new Error(`control ${path}: HTTP ${response.status}`);
    return response.json();
  };

  it('accepts every event, sees every task end and reports no gap', async () => {
    const gate: ReceiverGate = {
      block: async () => {
        await control('block');
      },
      release: async () => {
        await control('release');
      },
      held: async () => ((await control('held', 'GET')) as { held: number }).held,
    };
    const report = await driveOverload(`${base}/events`, PLAN, gate);
    const stats = report.poster.stats;
    await report.poster.aclose();
    await control('summary');
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as PeerSummary;

    expect(stats.dropped).toBe(0);
    expect(stats.coalesced).toBeGreaterThan(PLAN.batches * PLAN.tasksPerBatch); // really overloaded
    expect({ bad: summary.bad_signature, invalid: summary.invalid, errors: summary.errors }).toEqual({
      bad: 0,
      invalid: 0,
      errors: [],
    });
    expect(Object.keys(summary.statuses)).toEqual(['200']);
    expect(summary.accepted).toBe(stats.delivered);
    expect(summary.accepted + stats.coalesced).toBe(report.posted);
    expect(Object.keys(summary.terminals).sort()).toEqual([...report.terminals.keys()].sort());
    for (const [id, terminal] of report.terminals) expect(summary.terminals[id]).toEqual(terminal);
    expect(summary.failures_parsed).toBe(
      [...report.terminals.values()].filter((t) => t.type === 'task_failed').length,
    );
    expect(summary.terminals_with_marker).toBeGreaterThan(0);
    expect(summary.gap_details).toEqual([]);
    expect(summary.gaps).toBe(0);
    expect(summary.coalesced_named).toBe(stats.coalesced);
  });
});
