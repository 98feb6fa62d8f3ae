import { afterEach, describe, expect, it } from '@jest/globals';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ArmServer } from '../fixtures/arm.server.js';
import { type AppHarness, type Session, startApp, until } from '../fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function listChanges(session: Session): { count: number } {
  const seen = { count: 0 };
  session.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    seen.count += 1;
  });
  return seen;
}

const uris = async (s: Session) => (await s.client.listResources()).resources.map((r) => r.uri);

describe('notifications/resources/list_changed', () => {
  it('is advertised and sent to every session when a task resource appears or goes, coalesced', async () => {
    h = startApp(ArmServer, { tasks: { maxFinishedRetained: 1 }, resourceUpdateIntervalMs: 250 });
    const a = await h.session();
    const b = await h.session();
    expect(a.client.getServerCapabilities()?.resources).toMatchObject({ listChanged: true });
    const seenA = listChanges(a);
    const seenB = listChanges(b);

    const first = await a.start('drive');
    await until(() => seenA.count === 1 && seenB.count === 1);
    expect(await uris(b)).toContain(`tasks://${first}`);

    // A burst inside the window (finish, start, finish) is folded into one more notification.
    await until(() => h!.server.controls.has(first));
    h.server.controls.get(first)?.finish();
    await until(() => h!.app.taskManager.get(first)?.state === 'succeeded');
    const second = await a.start('drive');
    await until(() => h!.server.controls.has(second));
    h.server.controls.get(second)?.finish();
    await until(() => h!.app.taskManager.get(second)?.state === 'succeeded');
    expect(seenA.count).toBe(1);
    await h.clock.advance(250);
    await until(() => seenA.count === 2 && seenB.count === 2);
    // maxFinishedRetained 1: the first task's resource went when the second finished
    expect(await uris(a)).toEqual(['tasks://running', `tasks://${second}`]);
    await h.clock.advance(1000);
    expect(seenA.count).toBe(2);
  });
});
