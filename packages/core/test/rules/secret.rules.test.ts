import { describe, expect, it } from '@jest/globals';
import { ConfigError, createEventTransportFromEnv } from '@robot-mcp-kit/core';
import { MIN_EVENT_SECRET_BYTES, secretBytes } from '../../src/rules/secret.rules.js';
import { weakSecretAllowed, weakSecretReason } from '@robot-mcp-kit/core/rules';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';

const URL_ENV = { RVC_CALLBACK_URL: 'http://127.0.0.1:8000/api/agent/events' };

function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the event-secret rule (one rule for the server and doctor)', () => {
  it('counts UTF-8 bytes and asks for at least 32', () => {
    expect(MIN_EVENT_SECRET_BYTES).toBe(32);
    expect(secretBytes('é'.repeat(16))).toBe(32);
    expect(weakSecretReason('é'.repeat(16))).toBeUndefined();
    expect(weakSecretReason('x'.repeat(31))).toBe(
      'is 31 bytes long; an event-signing secret needs at least 32 bytes',
    );
  });

  it('reads RMK_ALLOW_WEAK_SECRET as on/off and refuses anything else by name', () => {
    expect(weakSecretAllowed({})).toBe(false);
    expect(weakSecretAllowed({ RMK_ALLOW_WEAK_SECRET: ' On ' })).toBe(true);
    expect(weakSecretAllowed({ RMK_ALLOW_WEAK_SECRET: '0' })).toBe(false);
    expect(configErrorOf(() => weakSecretAllowed({ RMK_ALLOW_WEAK_SECRET: 'maybe' })).variable).toBe(
      'RMK_ALLOW_WEAK_SECRET',
    );
  });
});

describe('start-up refuses a short RVC_EVENT_SECRET', () => {
  it.each(['abc', 'x'.repeat(31)])('refuses %p with the reason and the fix', (secret) => {
    for (const url of [URL_ENV.RVC_CALLBACK_URL, 'mqtt://127.0.0.1:1883', 'nats://127.0.0.1:4222']) {
      const err = configErrorOf(() =>
        createEventTransportFromEnv('nav', { env: { RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: secret } }),
      );
      expect(err.variable).toBe('RVC_EVENT_SECRET');
      expect(err.message).toContain(`is ${secret.length} bytes long`);
      expect(err.message).toContain('openssl rand -hex 32');
      expect(err.message).toContain('RMK_ALLOW_WEAK_SECRET=1');
      expect(err.message).not.toContain(secret);
    }
  });

  it('starts with a short secret when RMK_ALLOW_WEAK_SECRET=1, with a loud warning', () => {
    const logger = new MemoryLogger();
    const env = { ...URL_ENV, RVC_EVENT_SECRET: 'abc', RMK_ALLOW_WEAK_SECRET: '1' };
    expect(createEventTransportFromEnv('nav', { env, logger }).description).toContain('127.0.0.1:8000');
    const warning = logger.entries.find((e) => e.level === 'warn');
    expect(warning?.message).toMatch(/^SECURITY WARNING: RVC_EVENT_SECRET is 3 bytes long/);
    expect(warning?.message).not.toContain("'abc'");
  });

  it('starts silently with 32 bytes', () => {
    const logger = new MemoryLogger();
    const env = { ...URL_ENV, RVC_EVENT_SECRET: 'k'.repeat(32) };
    createEventTransportFromEnv('nav', { env, logger });
    expect(logger.entries.filter((e) => e.level === 'warn')).toEqual([]);
  });
});
