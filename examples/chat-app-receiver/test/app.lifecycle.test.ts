import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { closeOnSignals, configOrExit, listen } from '../src/app.lifecycle.js';

describe('listen', () => {
  it('serves the app and prints the events URL with the bound port', async () => {
    const lines: string[] = [];
    const server = await listen(
      (_req, res) => res.end('hi'),
      { host: '127.0.0.1', port: 0 },
      (l) => lines.push(l),
    );
    try {
      const { port } = server.address() as AddressInfo;
      expect(lines).toEqual([`listening on http://127.0.0.1:${port}/api/agent/events`]);
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('hi');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('rejects when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = taken.address() as AddressInfo;
      await expect(
        listen(
          () => undefined,
          { host: '127.0.0.1', port },
          () => undefined,
        ),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});

class FakeProcess extends EventEmitter {
  readonly exits: number[] = [];
  private notify: (() => void) | undefined;
  exit(code: number): void {
    this.exits.push(code);
    this.notify?.();
  }
  exited(): Promise<number> {
    return new Promise((resolve) => {
      if (this.exits.length > 0) return resolve(this.exits[0]!);
      this.notify = () => resolve(this.exits[0]!);
    });
  }
}

describe('configOrExit', () => {
  it('returns the configuration', () => {
    const proc = new FakeProcess();
    expect(configOrExit({ RVC_SECRET_SLEEPER: 's' }, proc).secrets).toEqual({ sleeper: 's' });
    expect(proc.exits).toEqual([]);
  });

  it('prints the ConfigError and exits 1', () => {
    const proc = new FakeProcess();
    const lines: string[] = [];
    expect(() => configOrExit({}, proc, (line) => lines.push(line))).toThrow(ConfigError);
    expect(proc.exits).toEqual([1]);
    expect(lines).toEqual([
      expect.stringMatching(/^chat-app-receiver: RECEIVER_SECRETS: no server secret is set/),
    ]);
  });
});

describe('closeOnSignals', () => {
  it('on SIGTERM closes the receiver, the HTTP server and the MCP connections, then exits 0', async () => {
    const proc = new FakeProcess();
    const order: string[] = [];
    const receiver = createEventReceiver({ secrets: { sleeper: 's' }, onEvent: () => undefined });
    const server = await listen(receiver.handler, { host: '127.0.0.1', port: 0 }, () => undefined);
    server.on('close', () => order.push('server'));
    const logger = new MemoryLogger();
    closeOnSignals(
      {
        server,
        receiver: { close: () => receiver.close().then(() => void order.push('receiver')) },
        servers: { close: async () => void order.push('servers') },
      },
      logger,
      proc,
    );
    proc.emit('SIGTERM', 'SIGTERM');
    proc.emit('SIGINT', 'SIGINT'); // a second signal changes nothing
    expect(await proc.exited()).toBe(0);
    expect(order).toEqual(['receiver', 'server', 'servers']);
    expect(server.listening).toBe(false);
    expect(logger.at('info', 'shutting down')).toHaveLength(1);
  });

  it('exits 1 when closing fails, or takes longer than the grace period', async () => {
    const failing = new FakeProcess();
    const server = await listen(
      () => undefined,
      { host: '127.0.0.1', port: 0 },
      () => undefined,
    );
    const logger = new MemoryLogger();
    closeOnSignals(
      {
        server,
        receiver: { close: async () => Promise.reject(new Error('boom')) },
        servers: { close: async () => {} },
      },
      logger,
      failing,
    );
    failing.emit('SIGINT', 'SIGINT');
    expect(await failing.exited()).toBe(1);
    expect(logger.at('error', 'shutdown failed')[0]?.meta).toMatchObject({ error: 'boom' });

    const stuck = new FakeProcess();
    closeOnSignals(
      {
        server,
        receiver: { close: () => new Promise<void>(() => undefined) },
        servers: { close: async () => {} },
      },
      logger,
      stuck,
      20,
    );
    stuck.emit('SIGTERM', 'SIGTERM');
    expect(await stuck.exited()).toBe(1);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
