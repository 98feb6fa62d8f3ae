import { describe, expect, it } from '@jest/globals';
import { type TaskBody, TaskManager } from '@robot-mcp-kit/core';
import { ANONYMOUS_SCOPE } from '@robot-mcp-kit/core/store';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { MAX_FINISHED_OWNERS, mayAccess, scopeOf, TaskOwners } from '../../src/auth/task-owners.js';
import { TaskProjection } from '../../src/task-views/task-projection.js';

/** Runs until cancelled. */
const hold: TaskBody = (ctx) =>
  new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));

describe('TaskOwners', () => {
  it('allows a caller exactly the tasks of its own scope: its principal, or the anonymous scope without auth', async () => {
    const taskManager = new TaskManager({ serverName: 'own' });
    const owners = new TaskOwners(new TaskProjection(taskManager));
    owners.observe();
    owners.bindSession('alice-session', { token: 'a', clientId: 'alice', scopes: [] });
    owners.bindSession('bob-session', { token: 'b', clientId: 'bob', scopes: [] });
    const alices = taskManager.start('t', hold, {
      origin: { sessionId: 'alice-session', principal: 'alice' },
    });
    const anonymous = taskManager.start('t', hold, { origin: { sessionId: 'stdio' } });
    const [alice, bob, none] = ['alice-session', 'bob-session', 'stdio'].map((id) =>
      owners.scopeOfSession(id),
    );
    expect([alice, bob, none]).toEqual(['alice', 'bob', ANONYMOUS_SCOPE]);
    expect(scopeOf(undefined)).toBe(ANONYMOUS_SCOPE);
    expect(owners.scopeOfTask(alices.task_id)).toBe('alice');
    expect(owners.scopeOfTask(anonymous.task_id)).toBe(ANONYMOUS_SCOPE);
    expect([alice, bob, none].map((scope) => owners.allows(scope!, alices.task_id))).toEqual([
      true,
      false,
      false,
    ]);
    expect([alice, bob, none].map((scope) => owners.allows(scope!, anonymous.task_id))).toEqual([
      false,
      false,
      true,
    ]);
    // the same rule for a record read from the store (its scope)
    expect(mayAccess('alice', 'alice')).toBe(true);
    expect(mayAccess('bob', 'alice')).toBe(false);
    await taskManager.aclose();
  });

  it('records owners from `started` origins only, and logs the principal of an authenticated start', async () => {
    const logger = new MemoryLogger();
    const taskManager = new TaskManager({ serverName: 'own' });
    const owners = new TaskOwners(new TaskProjection(taskManager));
    const stop = owners.observe(logger);
    const bare = taskManager.start('t', hold);
    const mine = taskManager.start('t', hold, { origin: { sessionId: 's1', principal: 'alice' } });
    expect(owners.ownerOf(bare.task_id)).toBeUndefined();
    expect(owners.ownerOf(mine.task_id)).toEqual({ sessionId: 's1', principal: 'alice' });
    expect(owners.runningOfSession('s1')).toEqual([mine.task_id]);
    expect(logger.entries.filter((e) => e.message === 'task started').map((e) => e.meta)).toEqual([
      { task_id: mine.task_id, principal: 'alice' },
    ]);
    stop();
    const later = taskManager.start('t', hold, { origin: { sessionId: 's1' } });
    expect(owners.ownerOf(later.task_id)).toBeUndefined();
    await taskManager.aclose();
  });

  it('forgets the oldest finished owners beyond the bound, never a running one', async () => {
    const taskManager = new TaskManager({ serverName: 'own', maxFinishedRetained: 10 });
    const owners = new TaskOwners(new TaskProjection(taskManager));
    owners.observe();
    const origin = { sessionId: 's', principal: 'p' };
    const running = taskManager.start('t', hold, { origin });
    const ids: string[] = [];
    for (let i = 0; i <= MAX_FINISHED_OWNERS; i += 1) {
      const info = taskManager.start('t', async () => ({}), { origin });
      ids.push(info.task_id);
      await taskManager.whenStopped(info.task_id);
    }
    expect(owners.ofTask(ids[0]!)).toBeUndefined();
    expect(owners.ofTask(ids[1]!)).toBe('p');
    expect(owners.ofTask(ids.at(-1)!)).toBe('p');
    expect(owners.runningOfSession('s')).toEqual([running.task_id]);
    await taskManager.aclose();
  });

  it("forgets an unauthenticated task's owner at its end; keeps a principal's for scope checks", async () => {
    const taskManager = new TaskManager({ serverName: 'own' });
    const owners = new TaskOwners(new TaskProjection(taskManager));
    owners.observe();
    const anonymous = taskManager.start('t', async () => ({}), { origin: { sessionId: 's1' } });
    const alice = taskManager.start('t', async () => ({}), {
      origin: { sessionId: 's1', principal: 'alice' },
    });
    expect(owners.runningOfSession('s1')).toEqual([anonymous.task_id, alice.task_id]);
    await taskManager.whenStopped(anonymous.task_id);
    await taskManager.whenStopped(alice.task_id);
    expect(owners.ownerOf(anonymous.task_id)).toBeUndefined();
    expect(owners.ofTask(alice.task_id)).toBe('alice');
    expect(owners.runningOfSession('s1')).toEqual([]);
    await taskManager.aclose();
  });
});
