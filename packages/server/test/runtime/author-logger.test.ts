import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import winston from 'winston';
import { kitLogFormat } from '@robot-mcp-kit/core/host';
import { InMemoryEventTransport } from '@robot-mcp-kit/core/testing';
import { bootstrap, type BootstrapOptions, type RobotMcpApp } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';

const apps: RobotMcpApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close({ timeoutMs: 500 });
});

/** A winston Stream transport into a buffer of parsed JSON lines. */
function bufferTransport(): { transport: winston.transport; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { transport: new winston.transports.Stream({ stream }), lines };
}

async function listen(options: BootstrapOptions<ArmServer>): Promise<void> {
  const app = bootstrap(ArmServer, { env: {}, eventTransport: new InMemoryEventTransport(), ...options });
  apps.push(app);
  await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
}

describe("the kit logs through an author's winston", () => {
  it('an own winston logger (its level and format) gets the server lines, with server on them', async () => {
    const buffer = bufferTransport();
    const logger = winston.createLogger({
      level: 'info',
      format: kitLogFormat(),
      transports: [buffer.transport],
    });
    await listen({ logger });
    expect(buffer.lines()).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'MCP server listening', server: 'arm' }),
    );
  });

  it('logTransports add transports to the default logger (LOG_LEVEL still applies)', async () => {
    const buffer = bufferTransport();
    await listen({ env: { LOG_LEVEL: 'warn' }, logTransports: [buffer.transport] });
    expect(buffer.lines()).toEqual([]);
    const verbose = bufferTransport();
    await listen({ env: { LOG_LEVEL: 'info' }, logTransports: [verbose.transport] });
    expect(verbose.lines()).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'MCP server listening', server: 'arm' }),
    );
  });
});
