import { afterEach, describe, expect, it } from '@jest/globals';
import { type EventTransport } from '@robot-mcp-kit/core';
import { type CancelRequestListener, InMemoryTaskStore } from '@robot-mcp-kit/core/store';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { type AppExtension, builtinFeatures, type Feature } from '@robot-mcp-kit/server/advanced';
import { until } from '../fixtures/harness.js';
import { ArmServer } from '../features/fixtures/arm.server.js';

// Components with a declared start/stop order (issue 30): an app starts its task store, then its
// poster, then its listener; it stops its tasks, then the store, the poster, the extensions in
// reverse of their install order, the transports last. A component that fails to stop is logged
// and the next one still stops.

const apps: RobotMcpApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close({ timeoutMs: 1000 })));
});

/** The kit's in-memory store, recording when the app starts (subscribes) and closes it. */
class RecordingStore extends InMemoryTaskStore {
  constructor(private readonly log: string[]) {
    super({ replicaId: 'lifecycle' });
  }

  override onCancelRequest(listener: CancelRequestListener): () => void {
    this.log.push('task-store started');
    return super.onCancelRequest(listener);
  }

  override close(): Promise<void> {
    this.log.push('task-store closed');
    return super.close();
  }
}

/** An in-memory event transport recording when the poster opens and closes it. */
function recordingTransport(log: string[]): EventTransport {
  const inner = new InMemoryEventTransport();
  return {
    description: 'recording',
    send: (delivery) => inner.send(delivery),
    open: () => Promise.resolve(void log.push('poster opened')),
    close: () => Promise.resolve(void log.push('poster closed')),
  };
}

/** An extension that records its close and whether the HTTP listener still answered then. */
function closingExtension(name: string, log: string[], url: () => string, fail = false): AppExtension {
  return {
    name,
    async close() {
      const up = await fetch(url()).then(
        () => true,
        () => false,
      );
      log.push(`${name} closed${up ? '' : ' after the listener'}`);
      if (fail) throw new Error(`${name} broke`);
    },
  };
}

function feature(extension: AppExtension): Feature {
  return { name: extension.name, needs: [], setup: () => ({ extension }) };
}

describe('the start and shutdown order of an app', () => {
  it('starts the store, then the poster; stops the tasks, the store, the poster, the extensions last-first, the listener', async () => {
    const log: string[] = [];
    const logger = new MemoryLogger();
    let url = '';
    const extension = (name: string, fail?: boolean) => closingExtension(name, log, () => url, fail);
    const app = bootstrap(ArmServer, {
      env: {},
      logger,
      store: new RecordingStore(log),
      eventTransport: recordingTransport(log),
      features: [
        ...builtinFeatures(),
        feature(extension('first')),
        feature(extension('second')),
        feature(extension('third', true)),
      ],
      extensions: [extension('given')],
    });
    apps.push(app);
    url = (await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 })).url!;
    let running = false;
    const task = app.taskManager.start('hold', (ctx) => {
      running = true;
      return new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          log.push('task cancelled');
          reject(ctx.signal.reason as Error);
        }),
      );
    });
    await until(() => running);

    await app.close({ timeoutMs: 2000 });
    expect(log).toEqual([
      'task-store started',
      'poster opened',
      'task cancelled',
      'task-store closed',
      'poster closed',
      'given closed', // given to bootstrap: installed after the features, so closed first
      'third closed',
      'second closed', // still closed although the one before it failed
      'first closed',
    ]);
    expect(app.taskManager.get(task.task_id)?.state).toBe('cancelled');
    const failed = logger.entries.filter((entry) => entry.message === 'a component failed to stop');
    expect(failed.map((entry) => entry.meta)).toEqual([
      { component: 'extension third', error: 'third broke' },
    ]);
    // the listener closed after the extensions (they still reached it), and did close
    await expect(fetch(url)).rejects.toThrow();
  });
});
