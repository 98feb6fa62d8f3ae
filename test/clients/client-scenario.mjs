/*
 * The scenario every real client runs against the built navigation example, shared by the client
 * scripts of this folder (each a child process, so a client runs in a plain Node realm, on the Node
 * it needs). A client script passes two functions: `list()` (the tool names the client offers its
 * user) and `call(name, args)` (the value the client hands its user for one tool call, as the client
 * itself shapes it). The script prints the report (one JSON line); the test asserts on it.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Polls `check` every 100 ms until it returns a value other than undefined (deadline 30 s). */
async function until(check, what) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

/**
 * list tools; a plain call (get_map); a long-running call (navigate_to with an eta_below trigger,
 * followed to its end with get_task); wait_for_event {task_id} without since for the trigger that
 * fired before the wait; a second drive stopped with cancel_task.
 */
export async function runScenario({ list, call }) {
  const tools = await list();
  const map = await call('get_map', {});
  const pose = await call('get_pose', {});
  const goal = map.goals.find((name) => name !== pose.zone && name !== 'lab');
  const started = await call('navigate_to', { goal, triggers: [{ type: 'eta_below', seconds: 1000 }] });
  const finished = await until(async () => {
    const info = await call('get_task', { task_id: started.task_id });
    return info.state === 'running' ? undefined : info;
  }, 'the drive to end');
  const waited = await call('wait_for_event', { task_id: started.task_id, type: 'eta_below', timeout_s: 5 });
  const other = map.goals.find((name) => name !== goal && name !== 'lab');
  const second = await call('navigate_to', { goal: other });
  const cancelled = await call('cancel_task', { task_id: second.task_id });
  const afterCancel = await until(async () => {
    const info = await call('get_task', { task_id: second.task_id });
    return info.state === 'running' ? undefined : info;
  }, 'the cancelled drive to end');
  return { tools, map, goal, started, finished, waited, cancelled, afterCancel };
}

/** Runs the scenario and prints its report as one JSON line (an error as `{"error": …}`). */
export async function report(client, close, extra = () => ({})) {
  try {
    const result = await runScenario(client);
    console.log(JSON.stringify({ report: { ...result, ...extra() } }));
  } catch (error) {
    console.log(JSON.stringify({ error: String(error?.stack ?? error) }));
    process.exitCode = 1;
  } finally {
    await close();
  }
}
