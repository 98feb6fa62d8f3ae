import { Writable } from 'node:stream';
import { createLogger, TaskManager } from '@robot-mcp-kit/core';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { RecordingSink, finished } from './task-test.helpers.js';

describe('ctx.logger (a winston child per task)', () => {
  it("carries the task's task_id and tool on every line, beside the server's own fields", async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'debug', stream, env: {}, defaultMeta: { server: 'arm-m8' } });
    const manager = new TaskManager({
      serverName: 'arm-m8',
      poster: new RecordingSink(),
      clock: new ManualClock(),
      logger,
    });
    const first = manager.start('grasp', async (ctx) => {
      ctx.logger.info('closing the gripper', { force_n: 12 });
      ctx.logger.debug('gripper closed');
      return {};
    });
    const second = manager.start('move_joint', async (ctx) => {
      ctx.logger.warn('joint near its limit');
      return {};
    });
    await finished(manager, first.task_id);
    await finished(manager, second.task_id);
    const lines = chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const of = (message: string) => lines.find((l) => l.message === message);
    expect(of('closing the gripper')).toMatchObject({
      level: 'info',
      server: 'arm-m8',
      task_id: first.task_id,
      tool: 'grasp',
      force_n: 12,
    });
    expect(of('gripper closed')).toMatchObject({ level: 'debug', task_id: first.task_id });
    expect(of('joint near its limit')).toMatchObject({ task_id: second.task_id, tool: 'move_joint' });
  });
});
