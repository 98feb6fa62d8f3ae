import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { InMemoryEventTransport } from '@robot-mcp-kit/core/testing';
import { runServer } from '@robot-mcp-kit/server';
import { checkLogLevel } from '@robot-mcp-kit/server/advanced';
import { RoverServer } from '../fixtures/rover.server.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** Runs `fn` with stderr captured; returns what was written. */
async function captureStderr(fn: () => Promise<unknown>): Promise<string> {
  const write = process.stderr.write;
  let stderr = '';
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    await fn().catch(() => undefined);
  } finally {
    process.stderr.write = write;
  }
  return stderr;
}

describe('runServer start-up errors say what to fix', () => {
  it('a port in use: a CONFIG_INVALID line naming the port and MCP_PORT, no stack trace', async () => {
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const exits: number[] = [];
    const stderr = await captureStderr(() =>
      runServer(RoverServer, {
        argv: [],
        env: {},
        eventTransport: new InMemoryEventTransport(),
        transport: { kind: 'streamable-http', host: '127.0.0.1', port },
        exit: (code) => exits.push(code),
      }),
    );
    expect(exits).toEqual([1]);
    expect(stderr).toContain(
      `cannot start RoverServer: CONFIG_INVALID: MCP_PORT: port ${port} on 127.0.0.1 is already in use`,
    );
    expect(stderr).toMatch(/set MCP_PORT to a free port \(0 picks one\)/);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an unknown LOG_LEVEL fails fast, naming the levels', async () => {
    const exits: number[] = [];
    const stderr = await captureStderr(() =>
      runServer(RoverServer, {
        argv: [],
        env: { LOG_LEVEL: 'verbose' },
        eventTransport: new InMemoryEventTransport(),
        transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
        exit: (code) => exits.push(code),
      }),
    );
    expect(exits).toEqual([1]);
    expect(stderr).toMatch(
      /CONFIG_INVALID: LOG_LEVEL: "verbose" is not a log level; use one of error, warn, info, debug/,
    );
  });

  it('accepts the known levels in any case, and unset', () => {
    for (const LOG_LEVEL of ['debug', 'INFO', 'Warn', 'error', '', undefined]) {
      expect(() => checkLogLevel({ LOG_LEVEL })).not.toThrow();
    }
    expect(() => checkLogLevel({ LOG_LEVEL: 'trace' })).toThrow(/LOG_LEVEL: "trace"/);
  });
});
