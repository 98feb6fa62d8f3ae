import { describe, expect, it } from '@jest/globals';
import { type TaskManager } from '@robot-mcp-kit/core';
import { type TaskChange } from '@robot-mcp-kit/core/host';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { type SurfaceNotifier } from '../../../src/surface/session-surface.port.js';
import { TaskChangePublisher } from '../../../src/features/resources/task-change.publisher.js';
import { TaskProjection } from '../../../src/task-views/task-projection.js';

/** The projection of a TaskManager whose one method the projection subscribes with is driven by the test. */
function changes(): {
  projection: TaskProjection;
  emit(change: Partial<TaskChange>): void;
  listeners: number;
} {
  const listeners = new Set<(change: TaskChange) => void>();
  const manager = {
    onChange(listener: (change: TaskChange) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as TaskManager;
  return {
    projection: new TaskProjection(manager),
    emit: (change) => {
      for (const listener of listeners)
        listener({ kind: 'event', state: 'running', ...change } as TaskChange);
    },
    get listeners() {
      return listeners.size;
    },
  };
}

function recorder() {
  const sent: string[] = [];
  return {
    sent,
    sink: {
      follows: () => true,
      resourceUpdated: (uri: string) => void sent.push(uri),
      resourcesListChanged: () => void sent.push('list'),
    } satisfies SurfaceNotifier,
  };
}

describe('TaskChangePublisher (tasks:// changes for every notification target)', () => {
  it('announces the task, tasks://running and, on start and end, the list', () => {
    const source = changes();
    const { sent, sink } = recorder();
    const publisher = new TaskChangePublisher(source.projection, new ManualClock(), 250, new MemoryLogger());
    publisher.attach(sink);
    source.emit({ kind: 'started', taskId: 'arm-000001' });
    expect(sent).toEqual(['tasks://arm-000001', 'tasks://running', 'list']);
    publisher.close();
  });

  it('coalesces a burst per URI into one update now and one at the end of the window', async () => {
    const clock = new ManualClock();
    const source = changes();
    const { sent, sink } = recorder();
    const publisher = new TaskChangePublisher(source.projection, clock, 250, new MemoryLogger());
    publisher.attach(sink);
    for (let i = 0; i < 5; i += 1) source.emit({ taskId: 'arm-000001' });
    expect(sent.filter((uri) => uri === 'tasks://arm-000001')).toHaveLength(1);
    await clock.advance(250);
    expect(sent.filter((uri) => uri === 'tasks://arm-000001')).toHaveLength(2);
    expect(sent).not.toContain('list'); // progress events do not change the list
    publisher.close();
  });

  it('stops listening on close, and a failing sink is logged, not thrown', () => {
    const source = changes();
    const logger = new MemoryLogger();
    const publisher = new TaskChangePublisher(source.projection, new ManualClock(), 0, logger);
    publisher.attach({
      follows: () => true,
      resourceUpdated: () => {
        throw new Error('stream gone');
      },
      resourcesListChanged: () => undefined,
    });
    expect(() => source.emit({ taskId: 'arm-000002' })).not.toThrow();
    expect(JSON.stringify(logger.entries)).toContain('stream gone');
    publisher.close();
    expect(source.listeners).toBe(0);
  });

  it("announces another replica's task changes from the remote source, and stops it on close", () => {
    const source = changes();
    const { sent, sink } = recorder();
    const remote = new Set<(taskId: string) => void>();
    const publisher = new TaskChangePublisher(
      source.projection,
      new ManualClock(),
      250,
      new MemoryLogger(),
      (listener) => {
        remote.add(listener);
        return () => void remote.delete(listener);
      },
    );
    publisher.attach(sink);
    for (const listener of remote) listener('arm-00000a');
    expect(sent).toEqual(['tasks://arm-00000a', 'tasks://running']);
    publisher.close();
    expect(remote.size).toBe(0);
  });

  it('sends an update only to the targets that follow its URI, the list change to every target, and stops at detach', () => {
    const source = changes();
    const publisher = new TaskChangePublisher(source.projection, new ManualClock(), 0, new MemoryLogger());
    const follower = recorder();
    const bystander: string[] = [];
    const detach = publisher.attach(follower.sink);
    publisher.attach({
      follows: (uri) => uri === 'tasks://running',
      resourceUpdated: (uri) => void bystander.push(uri),
      resourcesListChanged: () => void bystander.push('list'),
    });
    source.emit({ kind: 'started', taskId: 'arm-000003' });
    expect(follower.sent).toEqual(['tasks://arm-000003', 'tasks://running', 'list']);
    expect(bystander).toEqual(['tasks://running', 'list']);
    detach();
    source.emit({ taskId: 'arm-000003' });
    expect(follower.sent).toHaveLength(3);
    expect(bystander).toEqual(['tasks://running', 'list', 'tasks://running']);
    publisher.close();
  });
});
