import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';

const CALLBACK = 'http://127.0.0.1:9/api/agent/events';

describe('a server refuses to start with a short RVC_EVENT_SECRET', () => {
  it('fails fast naming the variable, the reason and the fix', () => {
    const start = () =>
      bootstrap(ArmServer, {
        env: { RVC_CALLBACK_URL: CALLBACK, RVC_EVENT_SECRET: 'abc' },
        logger: new MemoryLogger(),
      });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(
      /RVC_EVENT_SECRET: is 3 bytes long; an event-signing secret needs at least 32 bytes: generate one with `openssl rand -hex 32`/,
    );
  });

  it('starts with RMK_ALLOW_WEAK_SECRET=1 and logs a SECURITY WARNING', async () => {
    const logger = new MemoryLogger();
    const app = bootstrap(ArmServer, {
      env: { RVC_CALLBACK_URL: CALLBACK, RVC_EVENT_SECRET: 'abc', RMK_ALLOW_WEAK_SECRET: '1' },
      logger,
    });
    try {
      expect(
        logger.entries.some(
          (e) => e.level === 'warn' && e.message.startsWith('SECURITY WARNING: RVC_EVENT_SECRET'),
        ),
      ).toBe(true);
    } finally {
      await app.close({ timeoutMs: 500 });
    }
  });
});
