import { afterEach, describe, expect, it } from '@jest/globals';
import { ArmServer } from '../fixtures/arm.server.js';
import { LatchedServer } from '../fixtures/latched.server.js';
import { type Answer, closeAll, GENERATIONS, serve } from '../../support/generations.harness.js';

/*
 * The safety features (e-stop latch, confirmation, tool policy) written once, asserted on both
 * generations with the official SDK clients over real streamable HTTP.
 */

afterEach(closeAll);

describe.each(GENERATIONS)('safety on MCP %s', (generation) => {
  it('the e-stop cancels the mover and refuses actuating tools with ESTOPPED until re-armed', async () => {
    const served = await serve(LatchedServer);
    const agent = await served.agent(generation);
    const driving = await agent.json<{ task_id: string }>('drive');
    expect((await agent.call('stop')).content).toEqual([{ type: 'text', text: 'stopped' }]);
    expect(await agent.json('get_task', { task_id: driving.task_id })).toMatchObject({ state: 'cancelled' });
    for (const name of ['drive', 'blink']) {
      const refused = await agent.call(name);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error_code: 'ESTOPPED' });
    }
    expect(served.instance.ran).toEqual(['drive', 'stop']);
    expect((await agent.call('get_pose')).isError).toBeFalsy();
    expect((await agent.call('rearm')).isError).toBeFalsy();
    expect((await agent.call('blink')).content).toEqual([{ type: 'text', text: 'blinked' }]);
  });

  it.each<[Answer['action'], boolean]>([
    ['accept', true],
    ['decline', false],
  ])('confirmation: the human answers %s, the tool runs: %s', async (action, runs) => {
    const served = await serve(LatchedServer);
    const asked: string[] = [];
    const agent = await served.agent(generation, {
      elicit: (message) => {
        asked.push(message);
        return action === 'accept' ? { action, content: {} } : { action };
      },
    });
    const result = await agent.call('open_door');
    expect(asked).toEqual(['Open the door?']);
    expect(result.isError ?? false).toBe(!runs);
    if (!runs) expect(result.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(served.instance.ran).toEqual(runs ? ['open_door'] : []);
  });

  it('confirmation: a client that cannot ask starts nothing', async () => {
    const served = await serve(LatchedServer);
    const agent = await served.agent(generation);
    const refused = await agent.call('open_door');
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(served.instance.ran).toEqual([]);
  });

  it('read-only mode: acting tools are neither listed nor callable', async () => {
    const served = await serve(ArmServer, { env: { RMK_READ_ONLY: '1' } });
    const agent = await served.agent(generation);
    const names = await agent.toolNames();
    expect(names).toEqual(expect.arrayContaining(['watch_people', 'get_pose', 'set_mode', 'cancel_task']));
    for (const hidden of ['move_arm', 'drive', 'erase_map', 'blink']) expect(names).not.toContain(hidden);
    const refused = await agent.call('blink').catch((error: unknown) => ({ isError: true, error }));
    expect(refused.isError).toBe(true);
  });

  it('the allow list limits the decorated tools; kit tools stay', async () => {
    const served = await serve(ArmServer, { allowTools: 'get_*,watch_people' });
    const agent = await served.agent(generation);
    const names = await agent.toolNames();
    expect(names).toEqual(expect.arrayContaining(['get_pose', 'watch_people', 'get_task', 'cancel_task']));
    expect(names).not.toContain('move_arm');
  });
});
