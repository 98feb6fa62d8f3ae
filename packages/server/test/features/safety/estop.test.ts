import { afterEach, describe, expect, it } from '@jest/globals';
import { CapabilityServer, NoArgs, Tool } from '@robot-mcp-kit/server';
import { connectTestClient, type TestClient } from '@robot-mcp-kit/server/testing';
import { LatchedServer } from '../fixtures/latched.server.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('the latching e-stop (estop: true, rearm: true) in one process', () => {
  it('refuses every actuating tool with ESTOPPED, starting nothing, until the re-arm tool', async () => {
    const instance = new LatchedServer();
    client = await connectTestClient(LatchedServer, { instance });
    const driving = await client.json<{ task_id: string }>('drive');
    expect((await client.call('stop')).content).toEqual([{ type: 'text', text: 'stopped' }]);
    expect((await client.json<{ state: string }>('get_task', { task_id: driving.task_id })).state).toBe(
      'cancelled',
    );

    for (const name of ['drive', 'blink']) {
      const refused = await client.call(name);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error_code: 'ESTOPPED' });
    }
    expect(instance.ran).toEqual(['drive', 'stop']); // nothing started while latched
    expect((await client.call('get_pose')).isError).toBeFalsy();
    expect((await client.call('stop')).isError).toBeFalsy(); // stopping again is always allowed
    expect(client.logger.entries.some((r) => r.message === 'E-STOP latched')).toBe(true);

    expect((await client.call('rearm')).isError).toBeFalsy();
    expect((await client.call('blink')).content).toEqual([{ type: 'text', text: 'blinked' }]);
  });

  it('checks the latch after the human confirmed: an e-stop pressed while the human decides wins', async () => {
    const instance = new LatchedServer();
    const press: { stop?: () => Promise<unknown> } = {};
    client = await connectTestClient(LatchedServer, {
      instance,
      elicit: async () => {
        await press.stop?.(); // someone presses the e-stop while the question is open
        return { action: 'accept' };
      },
    });
    const c = client;
    press.stop = () => c.call('stop');
    const refused = await client.call('open_door');
    expect(refused.structuredContent).toMatchObject({ error_code: 'ESTOPPED' });
    expect(instance.ran).toEqual(['stop']);
  });

  it('refuses an e-stop or re-arm tool that also actuates, at decoration', async () => {
    @CapabilityServer({ name: 'bad', version: '0.0.1' })
    class Bad {
      @Tool({ description: 'Stop', estop: true, actuates: true, args: NoArgs })
      stop(): string {
        return 'x';
      }
    }
    await expect(connectTestClient(Bad)).rejects.toThrow(/estop or rearm neither actuates/);
  });
});
