#!/usr/bin/env node
// The reliability soak (`npm run soak`; not part of `npm test`). Needs the build: `npm run build`.
//
// Spawns the built sleeper example as a real capability server (streamable HTTP), points its
// RVC_CALLBACK_URL at a loopback receiver (the real @robot-mcp-kit/receiver) that answers 500 to a
// share of the requests, and starts `--rate` long-running sleep_task calls per second for
// `--minutes`. At the end every task must have delivered every event exactly in order (checked by
// event_id and per-task seq), and the server's RSS must stay flat (first minute vs last minute).
//
// Then an outage phase (issue 13.1): the receiver goes down (connections reset) while
// `--outage-tasks` sleeper tasks run, each with `--outage-triggers` repeating triggers of
// `--outage-trigger-kb` KB that fire on every progress event — the heaviest load a caller can
// make the poster queue. The server's RSS is printed every 10 s and must level off once the
// poster's byte budget (maxQueueBytes, 64 MiB by default) is reached, with only a few drop-summary
// log lines instead of one per dropped event.
//
// Options: --minutes N (default 2), --rate N tasks/s (50), --task-seconds N (10), --fail F (0.1),
//          --seed N (1), --outage-seconds N (60; 0 skips the phase), --outage-tasks N (20),
//          --outage-triggers N (64), --outage-trigger-kb N (16), --json (print only the JSON summary).
// Exit code 0 when nothing was lost or reordered and RSS stayed flat in both phases, 1 otherwise.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const serverMain = join(root, 'examples/sleeper/dist/main.js');
const receiverEntry = join(root, 'packages/receiver/dist/index.js');
for (const file of [serverMain, receiverEntry]) {
  if (!existsSync(file)) {
    console.error(`soak: ${file} is missing; build the workspace first: npm run build`);
    process.exit(1);
  }
}
const { createEventReceiver } = await import(pathToFileURL(receiverEntry).href);
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`soak: --${name} needs a non-negative number, e.g. --${name} ${fallback}`);
    process.exit(2);
  }
  return value;
}
const minutes = option('minutes', 2);
const rate = option('rate', 50);
const taskSeconds = option('task-seconds', 10);
const failShare = option('fail', 0.1);
let seed = option('seed', 1) >>> 0 || 1;
const outageSeconds = option('outage-seconds', 60);
const outageTasks = option('outage-tasks', 20);
const outageTriggers = option('outage-triggers', 64);
const outageTriggerKb = option('outage-trigger-kb', 16);
const jsonOnly = process.argv.includes('--json');
const SECRET = 'soak-secret-0123456789abcdef012345';
const say = (text) => jsonOnly || console.log(text);

/** A small seeded PRNG (xorshift32), so a run can be repeated. */
function random() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
}

async function freePort() {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

// --- the app side: the real receiver behind a 10 % failure injector -------------------------
const tasks = new Map(); // task_id -> { seqs: number[], done: boolean }
const seen = new Set(); // event_ids delivered
const counts = { requests: 0, injected500: 0, duplicates: 0, gaps: 0, late: 0, refusedDown: 0 };
let receiverDown = false;
const receiver = createEventReceiver({
  secrets: { sleeper: SECRET },
  dedupe: { ttlS: 3600, max: 2_000_000 },
  onGap: () => void (counts.gaps += 1),
  onEvent: (event, context) => {
    if (context.late) counts.late += 1;
    if (seen.has(event.event_id)) {
      counts.duplicates += 1;
      return;
    }
    seen.add(event.event_id);
    const task = tasks.get(event.task_id) ?? { seqs: [], done: false };
    task.seqs.push(event.seq);
    if (event.type === 'task_done') task.done = true;
    tasks.set(event.task_id, task);
  },
});
const http = createServer((req, res) => {
  if (receiverDown) {
    counts.refusedDown += 1;
    req.socket.destroy(); // the app is down: every POST fails at the connection
    return;
  }
  counts.requests += 1;
  if (random() < failShare) {
    counts.injected500 += 1;
    req.resume();
    req.on('end', () =>
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"injected"}'),
    );
    return;
  }
  receiver.handler(req, res);
});
await new Promise((r) => http.listen(0, '127.0.0.1', r));
const callbackUrl = `http://127.0.0.1:${http.address().port}/api/agent/events`;

// --- the capability server: the built sleeper as a child process -----------------------------
const mcpPort = await freePort();
const child = spawn(process.execPath, [serverMain], {
  env: {
    PATH: process.env.PATH ?? '',
    MCP_TRANSPORT: 'streamable-http',
    MCP_PORT: String(mcpPort),
    RVC_CALLBACK_URL: callbackUrl,
    RVC_EVENT_SECRET: SECRET,
    LOG_LEVEL: 'error',
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let serverLog = '';
let serverLines = 0;
child.stderr.on('data', (c) => {
  const text = c.toString();
  serverLines += text.split('\n').length - 1;
  serverLog = (serverLog + text).slice(-20_000);
});
const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));

const client = new Client({ name: 'soak', version: '1.0.0' });
for (let attempt = 0; ; attempt += 1) {
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${mcpPort}/mcp`)));
    break;
  } catch (err) {
    if (attempt > 100) throw new Error(`soak: the server did not come up: ${err}\n${serverLog}`);
    await delay(100);
  }
}

function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

// --- load: `rate` tasks per second for `minutes` ------------------------------------------------
const started = [];
const callErrors = [];
const rss = []; // { t, mb }
const t0 = Date.now();
const durationMs = minutes * 60_000;
const sampler = setInterval(() => rss.push({ t: Date.now() - t0, mb: rssMb(child.pid) }), 1000);
say(`soak: ${rate} tasks/s of ${taskSeconds} s for ${minutes} min, ${failShare * 100}% of event POSTs fail`);
const inflight = new Set();
for (let i = 0; Date.now() - t0 < durationMs; i += 1) {
  const due = t0 + (i * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 0) await delay(wait);
  const call = client
    .callTool({ name: 'sleep_task', arguments: { duration_s: taskSeconds } })
    .then((r) => started.push(r.structuredContent.task_id))
    .catch((err) => callErrors.push(String(err)))
    .finally(() => inflight.delete(call));
  inflight.add(call);
  if (i % (rate * 10) === 0 && i > 0) {
    const last = rss[rss.length - 1]?.mb ?? 0;
    say(
      `  ${Math.round((Date.now() - t0) / 1000)} s: ${started.length} tasks started, ${seen.size} events, RSS ${last.toFixed(1)} MB`,
    );
  }
}
await Promise.all(inflight);
const loadEndedAt = Date.now() - t0;

// --- drain: wait for every task's last event --------------------------------------------------
const expectedPerTask = Math.ceil(taskSeconds) + 1; // one progress per second, then task_done
const drainLimit = Date.now() + (taskSeconds + 180) * 1000;
while (Date.now() < drainLimit && !started.every((id) => tasks.get(id)?.done)) await delay(250);
clearInterval(sampler);
const drainedAt = Date.now() - t0;

// --- verdict -------------------------------------------------------------------------------------
let lost = 0;
let reordered = 0;
for (const id of started) {
  const seqs = tasks.get(id)?.seqs ?? [];
  lost += Math.max(0, expectedPerTask - seqs.length);
  if (seqs.some((s, i) => s !== i + 1)) reordered += 1;
}
const startedSet = new Set(started);
const unknownTasks = [...tasks.keys()].filter((id) => !startedSet.has(id)).length;
const duplicateTaskIds = started.length - startedSet.size;
const window = (from, to) => rss.filter((s) => s.t >= from && s.t < to).map((s) => s.mb);
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
// Steady state starts once the first tasks end (the concurrency ramps up until then).
const steadyFrom = Math.min(taskSeconds * 1000 + 5000, loadEndedAt / 2);
const firstMinute = mean(window(steadyFrom, Math.min(steadyFrom + 60_000, loadEndedAt)));
const lastMinute = mean(window(Math.max(steadyFrom, loadEndedAt - 60_000), loadEndedAt));
const peak = Math.max(0, ...rss.map((s) => s.mb));
const rssFlat = lastMinute <= firstMinute * 1.2 + 10;

// The load phase's figures, before the outage phase adds its own (gaps there are expected).
const loadGaps = counts.gaps;
const loadDelivered = seen.size;
const outage = outageSeconds > 0 ? await outagePhase() : undefined;

child.kill('SIGTERM');
const exit = await Promise.race([exited, delay(20_000).then(() => ({ code: 'timeout' }))]);
await client.close().catch(() => undefined);
http.closeAllConnections();
await new Promise((r) => http.close(r));

const summary = {
  minutes,
  rate_per_s: rate,
  task_seconds: taskSeconds,
  fail_share: failShare,
  tasks_started: started.length,
  tool_call_errors: callErrors.length,
  events_expected: started.length * expectedPerTask,
  events_delivered: loadDelivered,
  events_lost: lost,
  tasks_reordered: reordered,
  duplicate_task_ids: duplicateTaskIds,
  unknown_tasks: unknownTasks,
  post_requests: counts.requests,
  injected_500: counts.injected500,
  duplicates: counts.duplicates,
  receiver_gaps: loadGaps,
  late_events: counts.late,
  events_per_s: Math.round(loadDelivered / (drainedAt / 1000)),
  drain_s_after_load: +((drainedAt - loadEndedAt) / 1000).toFixed(1),
  rss_steady_from_s: +(steadyFrom / 1000).toFixed(1),
  rss_mb_first_minute: +firstMinute.toFixed(1),
  rss_mb_last_minute: +lastMinute.toFixed(1),
  rss_mb_peak: +peak.toFixed(1),
  rss_flat: rssFlat,
  outage,
  server_exit: exit.code,
};
const ok =
  lost === 0 &&
  reordered === 0 &&
  duplicateTaskIds === 0 &&
  callErrors.length === 0 &&
  loadGaps === 0 &&
  started.length > 0 &&
  rssFlat &&
  (outage === undefined || outage.rss_flat) &&
  exit.code === 0;
console.log(JSON.stringify(summary, null, jsonOnly ? 0 : 2));
if (callErrors.length) say(`first tool call error: ${callErrors[0]}`);
if (exit.code !== 0) say(`server log tail:\n${serverLog.slice(-2000)}`);
say(ok ? '✔ soak passed: nothing lost, nothing reordered, RSS flat' : '✘ soak failed');
process.exit(ok ? 0 : 1);

/**
 * The receiver down for `outageSeconds` while tasks with many large repeating triggers run.
 * RSS must level off: the mean of the last quarter may exceed the mean of the second quarter by
 * at most 10 % + 16 MB (the first quarter is the queue filling up to its byte budget).
 */
async function outagePhase() {
  const pad = 'x'.repeat(Math.max(0, outageTriggerKb * 1024 - 120));
  const triggers = Array.from({ length: outageTriggers }, (_, i) => ({
    type: 'progress_above',
    percent: 0,
    repeat: true,
    n: i,
    pad,
  }));
  say(
    `soak outage: receiver down ${outageSeconds} s, ${outageTasks} tasks x ${outageTriggers} repeating ${outageTriggerKb} KB triggers`,
  );
  receiverDown = true;
  const linesBefore = serverLines;
  const samples = [];
  const from = Date.now();
  const ids = await Promise.all(
    Array.from({ length: outageTasks }, () =>
      client
        .callTool({ name: 'sleep_task', arguments: { duration_s: outageSeconds + 5, triggers } })
        .then((r) => r.structuredContent?.task_id ?? `error: ${JSON.stringify(r.content).slice(0, 200)}`),
    ),
  );
  if (ids.some((id) => String(id).startsWith('error')))
    say(`  a task did not start: ${ids.find((id) => String(id).startsWith('error'))}`);
  while (Date.now() - from < outageSeconds * 1000) {
    await delay(1000);
    const t = Math.round((Date.now() - from) / 1000);
    samples.push({ t, mb: rssMb(child.pid) });
    if (t % 10 === 0)
      say(`  outage ${t} s: RSS ${samples.at(-1).mb.toFixed(1)} MB, ${serverLines - linesBefore} log lines`);
  }
  receiverDown = false;
  const quarter = (q) =>
    samples.filter((x) => x.t > (q * outageSeconds) / 4 && x.t <= ((q + 1) * outageSeconds) / 4);
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b.mb, 0) / xs.length : 0);
  const second = mean(quarter(1));
  const last = mean(quarter(3));
  return {
    seconds: outageSeconds,
    tasks: outageTasks,
    triggers_per_task: outageTriggers,
    trigger_kb: outageTriggerKb,
    posts_refused: counts.refusedDown,
    rss_mb_by_10s: samples.filter((x) => x.t % 10 === 0).map((x) => +x.mb.toFixed(1)),
    rss_mb_second_quarter: +second.toFixed(1),
    rss_mb_last_quarter: +last.toFixed(1),
    rss_mb_peak: +Math.max(0, ...samples.map((x) => x.mb)).toFixed(1),
    rss_flat: samples.length > 0 && last <= second * 1.1 + 16,
    server_log_lines: serverLines - linesBefore,
  };
}
