import { afterEach, describe, expect, it } from '@jest/globals';
import { until } from '../fixtures/harness.js';
import { TeleopServer } from './fixtures/teleop.server.js';
import { closeAll, GENERATIONS, serve } from '../support/generations.harness.js';

/*
 * Session clean-up on both generations. A 2025-11-25 agent has a session: when it ends (DELETE),
 * the `cancelOnDisconnect` tasks it started are cancelled. A 2026-07-28 agent has none: each
 * request stands alone and ends with its answer, so there is no "end of the caller" to observe and
 * its tasks run on until cancelled (the closest 2026 signal, a subscriptions/listen stream
 * closing, is not tied to the calls that started the tasks).
 */

afterEach(closeAll);

describe.each(GENERATIONS)('session clean-up on MCP %s', (generation) => {
  it('tasks outlive the agent that started them; a later agent sees and cancels them', async () => {
    const served = await serve(TeleopServer);
    const first = await served.agent(generation);
    const { task_id: drive } = await first.json<{ task_id: string }>('drive');
    await first.close();
    await until(() => served.app.sessionCount === 0, 'the first agent to be gone');
    expect(served.app.taskManager.get(drive)?.state).toBe('running');
    const later = await served.agent(generation);
    expect(await later.json('get_task', { task_id: drive })).toMatchObject({ state: 'running' });
    expect(await later.json('cancel_task', { task_id: drive })).toEqual({
      task_id: drive,
      state: 'cancelled',
    });
  });

  it('cancelOnDisconnect: ends with a 2025 session; runs on after a 2026 agent (no session to end)', async () => {
    const served = await serve(TeleopServer);
    const agent = await served.agent(generation);
    const { task_id: teleop } = await agent.json<{ task_id: string }>('teleop');
    const { task_id: drive } = await agent.json<{ task_id: string }>('drive');
    await agent.close();
    await until(() => served.app.sessionCount === 0, 'the agent to be gone');
    if (generation === '2025-11-25') {
      await until(() => served.app.taskManager.get(teleop)?.state === 'cancelled', 'the teleop to stop');
    } else {
      expect(served.app.taskManager.get(teleop)?.state).toBe('running');
    }
    expect(served.app.taskManager.get(drive)?.state).toBe('running');
  });
});
