import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { TaskManager } from '@robot-mcp-kit/core';
import {
  builtinFeatures,
  eventFeedOf,
  type Feature,
  type FeatureContext,
} from '@robot-mcp-kit/server/advanced';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { type AppHarness, startApp, until } from '../features/fixtures/multi-client.js';

// One task projection per app (issue 30): bootstrap creates it beside the TaskManager and hands it
// to every reader (owners, event feed, task resources, native tasks, any feature through
// `FeatureContext.projection`); nothing looks one up, so the manager has one change listener for all.

const harnesses: AppHarness<ArmServer>[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

type ProbeServices = Pick<FeatureContext, 'projection' | 'taskManager'>;

/** A feature that keeps the context it was set up with and follows the projection it was handed. */
function probe(contexts: ProbeServices[], kinds: string[]): Feature {
  return {
    name: 'probe',
    needs: ['projection', 'taskManager'],
    setup(ctx) {
      contexts.push(ctx);
      const stop = ctx.projection.subscribe((change) => kinds.push(change.kind));
      return { extension: { name: 'probe', close: stop } };
    },
  };
}

describe('the task projection of an app', () => {
  it('is one per app, handed to every feature, and the one change listener of its TaskManager', async () => {
    const onChange = jest.spyOn(TaskManager.prototype, 'onChange');
    const contexts: ProbeServices[] = [];
    const kinds: string[] = [];
    const features = [...builtinFeatures(), probe(contexts, kinds), probe(contexts, kinds)];
    const a = startApp(ArmServer, { features });
    const b = startApp(ArmServer, { features });
    harnesses.push(a, b);
    const listenersOf = (manager: TaskManager) =>
      onChange.mock.contexts.filter((subscribed) => subscribed === manager).length;

    const [ofA, alsoOfA, ofB] = contexts;
    expect(ofA!.taskManager).toBe(a.app.taskManager);
    expect(alsoOfA!.projection).toBe(ofA!.projection); // every feature of an app gets the one
    expect(ofB!.projection).not.toBe(ofA!.projection); // each app owns its own
    // owners, event feed, task resources, native tasks and two probes read it: one listener
    expect(listenersOf(a.app.taskManager)).toBe(1);
    expect(listenersOf(b.app.taskManager)).toBe(1);

    const taskId = await (await a.session()).start('drive');
    await until(() => a.server.controls.has(taskId));
    expect(ofA!.projection.get(taskId)).toMatchObject({ sessionId: expect.any(String), finished: false });
    await a.server.control(taskId).ctx.progress({ percent: 10 });
    a.server.control(taskId).finish();
    await until(() => kinds.filter((kind) => kind === 'finished').length === 2);
    expect(kinds.filter((kind) => kind === 'started')).toHaveLength(2); // a's two probes, not b's
    expect(eventFeedOf(a.app)!.newest).toBeGreaterThanOrEqual(1); // the feed read the same changes
    expect(listenersOf(a.app.taskManager)).toBe(1);
  });
});
