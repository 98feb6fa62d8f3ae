#!/usr/bin/env node
// The robot-mcp-kit demo (`npm run demo` = build + this script).
//
// Starts a signed-event receiver on 127.0.0.1, spawns examples/navigation over stdio with
// RVC_CALLBACK_URL / RVC_EVENT_SECRET pointing at it, and drives it with the official MCP SDK
// client: a navigate_to with eta_below and zone_entered triggers, then a second navigation that it
// cancels with cancel_task. Every event is shown as it arrives, with its signature checked by
// core's verify(). Exits 0 when everything went as the contract says, 1 otherwise.
//
// Options: --ci or DEMO_QUIET=1 (no animation, faster robot); DEMO_VERBOSE=1 (server logs);
// NAV_SPEED_MPS, NAV_TICK_MS (robot speed and tick); DEMO_RECEIVER_SECRET (verify with another
// secret than the server's: every event is then rejected, to see the demo fail).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createDisplay } from './demo/display.mjs';
import { startReceiver } from './demo/receiver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const coreEntry = join(root, 'packages/core/dist/index.js');
const serverEntry = join(root, 'examples/navigation/dist/main.js');
for (const file of [coreEntry, serverEntry]) {
  if (!existsSync(file)) {
    console.error(`demo: ${file} is missing; build the workspace first: npm run build`);
    process.exit(1);
  }
}
const { verify } = await import(pathToFileURL(coreEntry).href);

const quiet = process.argv.includes('--ci') || ['1', 'true'].includes(process.env.DEMO_QUIET ?? '');
const verbose = ['1', 'true'].includes(process.env.DEMO_VERBOSE ?? '');
const speed = process.env.NAV_SPEED_MPS ?? (quiet ? '13' : '3');
const tickMs = process.env.NAV_TICK_MS ?? (quiet ? '100' : '250');
const ROUTE_TO_KITCHEN_M = 26; // dock → lobby → corridor → junction → kitchen on the example's map
const etaSeconds = Number((ROUTE_TO_KITCHEN_M / Number(speed) / 3).toFixed(1)); // a third of the trip
const WAIT_MS = 60_000;

const secret = randomBytes(32).toString('hex');
const receiverSecret = process.env.DEMO_RECEIVER_SECRET ?? secret;
const display = createDisplay({ animate: !quiet && Boolean(process.stdout.isTTY) });
const problems = [];
const events = []; // verified, de-duplicated, in arrival order
const serverLog = [];
let verified = 0;
let duplicates = 0;
let fatal;

/** Fails the demo at once (bad signature, server gone): every wait stops. */
function fail(problem) {
  problems.push(problem);
  fatal ??= problem;
}

const eventsOf = (taskId) => events.filter((e) => e.task_id === taskId);
const MARK = '✔ signature verified';

function showEvent(event) {
  const { type, payload, seq } = event;
  const tag = `${event.task_id} #${seq}`;
  if (type === 'progress') display.progress(event.task_id, payload, `✔ signed`);
  else if (type === 'trigger_fired') {
    const { trigger, ...extra } = payload;
    const { type: triggerType, ...fields } = trigger;
    display.line(
      `   ⚡ trigger_fired ${triggerType} ${JSON.stringify(fields)} → ${JSON.stringify(extra)}  [${tag}]  ${MARK}`,
    );
  } else if (type === 'task_done') {
    const r = payload.result;
    display.line(
      `   ✅ task_done: arrived at ${r.goal} (${r.x}, ${r.y}), ${r.distance_m} m in ${r.duration_s} s  [${tag}]  ${MARK}`,
    );
  } else if (type === 'task_failed') {
    display.line(`   ✘ task_failed ${payload.error_code}: ${payload.message}  [${tag}]  ${MARK}`);
  } else display.line(`   • ${type} ${JSON.stringify(payload)}  [${tag}]  ${MARK}`);
}

async function waitFor(what, predicate, timeoutMs = WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (!fatal && !predicate()) {
    if (Date.now() > deadline) {
      fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      break;
    }
    await delay(20);
  }
  if (fatal) throw new Error(fatal);
}

async function callJson(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content?.[0]?.text ?? '';
  if (result.isError) throw new Error(`${name} returned an error: ${text}`);
  return JSON.parse(text);
}

const receiver = await startReceiver({
  secret: receiverSecret,
  verify,
  onEvent({ event, server, duplicate }) {
    if (duplicate) {
      duplicates += 1;
      return;
    }
    verified += 1;
    if (server !== 'navigation') fail(`event ${event.event_id} came with X-RVC-Server: ${server}`);
    events.push(event);
    showEvent(event);
  },
  onRejected({ reason, server }) {
    display.line(`   ✘ rejected an event from ${server}: ${reason}`);
    fail(`an event failed verification: ${reason}`);
  },
});

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [serverEntry],
  cwd: root,
  stderr: 'pipe',
  env: {
    ...process.env,
    MCP_TRANSPORT: 'stdio',
    RVC_CALLBACK_URL: receiver.url,
    RVC_EVENT_SECRET: secret,
    NAV_SPEED_MPS: speed,
    NAV_TICK_MS: tickMs,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    LOG_FORMAT: 'json',
  },
});
transport.stderr?.on('data', (chunk) => {
  for (const line of String(chunk).split('\n').filter(Boolean)) {
    serverLog.push(line);
    if (verbose) display.line(`   [server] ${line}`);
  }
});
const client = new Client({ name: 'robot-mcp-kit-demo', version: '0.1.0' });

async function run() {
  display.line('robot-mcp-kit demo');
  display.line(
    `▶ receiver listening on ${receiver.url} (HMAC-SHA256, secret of ${secret.length / 2} random bytes)`,
  );
  await client.connect(transport);
  const pid = transport.pid;
  const { tools } = await client.listTools();
  display.line(
    `▶ started examples/navigation over stdio (pid ${pid}, ${speed} m/s); tools: ${tools.map((t) => t.name).join(', ')}`,
  );

  // 1. A navigation with two triggers, followed to the end.
  const triggers = [
    { type: 'eta_below', seconds: etaSeconds },
    { type: 'zone_entered', zone: 'kitchen' },
  ];
  const first = await callJson(client, 'navigate_to', { goal: 'kitchen', triggers });
  display.line(`▶ navigate_to kitchen, triggers ${JSON.stringify(triggers)}`);
  display.line(`   → task ${first.task_id} (${first.state}); the tool returned at once, events follow:`);
  await waitFor(`the outcome of ${first.task_id}`, () =>
    eventsOf(first.task_id).some((e) => e.type === 'task_done' || e.type === 'task_failed'),
  );
  checkFirst(first.task_id, triggers);
  const info = await callJson(client, 'get_task', { task_id: first.task_id });
  display.line(
    `▶ get_task ${first.task_id} → state ${info.state} (poll is the truth: it agrees with the events)`,
  );
  if (info.state !== 'succeeded') fail(`get_task says ${first.task_id} is ${info.state}, expected succeeded`);

  // 2. A second navigation, cancelled on the way.
  const second = await callJson(client, 'navigate_to', { goal: 'dock' });
  display.line(`▶ navigate_to dock → task ${second.task_id}; cancelling it after a few progress events`);
  await waitFor(
    `progress of ${second.task_id}`,
    () => eventsOf(second.task_id).filter((e) => e.type === 'progress').length >= 3,
  );
  const cancelled = await callJson(client, 'cancel_task', { task_id: second.task_id });
  display.line(`■ cancel_task ${second.task_id} → ${JSON.stringify(cancelled)}`);
  if (cancelled.state !== 'cancelled')
    fail(`cancel_task returned state ${cancelled.state}, expected cancelled`);
  await delay(Number(tickMs) * 4 + 300); // a few ticks: nothing more may come
  const after = eventsOf(second.task_id).filter((e) => e.type !== 'progress');
  if (after.length > 0)
    fail(`the cancelled task ${second.task_id} emitted ${after.map((e) => e.type).join(', ')}`);
  else
    display.line(
      `   no terminal event for ${second.task_id}: a cancelled task ends quietly, as the contract says`,
    );
  const pose = await callJson(client, 'get_pose', {});
  display.line(`▶ get_pose → ${JSON.stringify(pose)}`);
  if (pose.moving) fail('the robot is still moving after cancel_task');

  // 3. Clean shutdown: closing stdin stops the server (cancel tasks, flush events, exit 0).
  const started = Date.now();
  await client.close();
  const tookMs = Date.now() - started;
  const stopped = serverLog.some((line) => line.includes('server stopped'));
  if (!stopped || tookMs >= 2000 || isAlive(pid)) {
    fail(
      `the server did not shut down cleanly when its stdin closed (${tookMs} ms, "server stopped" logged: ${stopped})`,
    );
  } else display.line(`▶ closed stdin: the server stopped cleanly in ${tookMs} ms`);
  checkSequences();
}

function checkFirst(taskId, triggers) {
  const list = eventsOf(taskId);
  const outcome = list.at(-1);
  if (outcome?.type !== 'task_done')
    fail(`${taskId} ended with ${outcome?.type}: ${JSON.stringify(outcome?.payload)}`);
  const conditions = {
    eta_below: (p, t) => p.eta_s < t.seconds,
    zone_entered: (p, t) => p.zone === t.zone,
  };
  for (const trigger of triggers) {
    const fired = list.filter((e) => e.type === 'trigger_fired' && e.payload.trigger.type === trigger.type);
    if (fired.length !== 1) {
      fail(`trigger ${trigger.type} fired ${fired.length} times, expected exactly once`);
      continue;
    }
    const cause = list.find((e) => e.seq === fired[0].seq - 1);
    if (cause?.type !== 'progress' || !conditions[trigger.type](cause.payload, trigger)) {
      fail(`trigger ${trigger.type} did not follow the progress event that met it`);
    }
  }
}

function checkSequences() {
  for (const taskId of new Set(events.map((e) => e.task_id))) {
    const seqs = eventsOf(taskId)
      .map((e) => e.seq)
      .sort((a, b) => a - b);
    if (seqs.some((seq, i) => seq !== i + 1)) fail(`events of ${taskId} have a gap: seq ${seqs.join(',')}`);
  }
}

function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

try {
  await run();
} catch (err) {
  if (!problems.includes(err.message)) problems.push(err.message);
} finally {
  await client.close().catch(() => undefined);
  await receiver.close();
}

display.line();
if (problems.length === 0) {
  const kinds = [...new Set(events.map((e) => e.type))].join(', ');
  display.line(
    `✔ demo finished: ${events.length} events (${kinds}), ${verified} signatures verified, ${duplicates} duplicates.`,
  );
  process.exit(0);
}
display.line('✘ demo failed:');
for (const problem of problems) display.line(`   - ${problem}`);
if (!verbose && serverLog.length > 0) {
  display.line('   last server log lines:');
  for (const line of serverLog.slice(-15)) display.line(`   ${line}`);
}
process.exit(1);
