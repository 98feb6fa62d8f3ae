import { ConfigError, EventPoster, createEventTransportFromEnv, verify } from '@robot-mcp-kit/core';
import { NoopEventTransport } from '../../src/events/noop-event.transport.js';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { TestServer, makeEvent } from './test-helpers.js';

function configErrorOf(make: () => unknown): ConfigError {
  try {
    make();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('createEventTransportFromEnv', () => {
  it.each([{}, { RVC_CALLBACK_URL: '' }, { RVC_CALLBACK_URL: '   ' }])(
    'returns a no-op transport when RVC_CALLBACK_URL is unset (%p)',
    (env) => {
      const logger = new MemoryLogger();
      const transport = createEventTransportFromEnv('navigation', { env, logger });
      expect(transport).toBeInstanceOf(NoopEventTransport);
      expect(transport.description).toBe('noop');
      expect(logger.at('debug', 'RVC_CALLBACK_URL is unset')).toHaveLength(1);
    },
  );

  it('does not need a secret in no-op mode', () => {
    expect(() => createEventTransportFromEnv('nav', { env: { RVC_EVENT_SECRET: '' } })).not.toThrow();
  });

  it.each([undefined, '', '  '])('fails fast when the secret is %p and the URL is set', (secret) => {
    const env: NodeJS.ProcessEnv = { RVC_CALLBACK_URL: 'http://127.0.0.1:8000/api/agent/events' };
    if (secret !== undefined) env.RVC_EVENT_SECRET = secret;
    const err = configErrorOf(() => createEventTransportFromEnv('navigation', { env }));
    expect(err.variable).toBe('RVC_EVENT_SECRET');
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toMatch(
      /^RVC_EVENT_SECRET: is required when RVC_CALLBACK_URL is set; set it to the secret/,
    );
    expect(err.message).toContain('navigation');
  });

  it.each(['not a url', 'ftp://127.0.0.1/events', '127.0.0.1:8000/api/agent/events', 'http//x'])(
    'rejects the malformed URL %p with an example',
    (url) => {
      const env = { RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: 's'.repeat(32) };
      const err = configErrorOf(() => createEventTransportFromEnv('nav', { env }));
      expect(err.variable).toBe('RVC_CALLBACK_URL');
      expect(err.message).toContain('http://127.0.0.1:8000/api/agent/events');
    },
  );

  it.each([
    'http://admin:hunter2-pw@127.0.0.1:99999/api/agent/events',
    'http://admin:hunter2-pw@127.0.0.1:8000:9/events?token=hunter2-pw',
    'http://admin:hunter2-pw@[::1/x',
  ])('never echoes the credentials of a bad URL: %p', (url) => {
    const err = configErrorOf(() => createEventTransportFromEnv('nav', { env: { RVC_CALLBACK_URL: url } }));
    expect(err.variable).toBe('RVC_CALLBACK_URL');
    expect(err.message).not.toContain('hunter2');
    expect(err.message).toContain('[redacted]');
  });

  it('checks the URL before the secret', () => {
    const err = configErrorOf(() =>
      createEventTransportFromEnv('nav', { env: { RVC_CALLBACK_URL: 'nope' } }),
    );
    expect(err.variable).toBe('RVC_CALLBACK_URL');
  });

  it.each(['0', '-5', 'abc', '1.5', '10s'])('rejects RVC_EVENT_TIMEOUT_MS=%p', (value) => {
    const env = {
      RVC_CALLBACK_URL: 'http://127.0.0.1:1/x',
      RVC_EVENT_SECRET: 's'.repeat(32),
      RVC_EVENT_TIMEOUT_MS: value,
    };
    expect(configErrorOf(() => createEventTransportFromEnv('nav', { env })).variable).toBe(
      'RVC_EVENT_TIMEOUT_MS',
    );
  });

  it('builds an HTTP transport that signs with the secret and honours RVC_EVENT_TIMEOUT_MS', async () => {
    const server = await TestServer.start((_r, i) => (i === 0 ? 'hang' : { status: 200 }));
    const env = {
      RVC_CALLBACK_URL: ` ${server.url} `,
      RVC_EVENT_SECRET: 'the-secret-0123456789abcdef012345',
      RVC_EVENT_TIMEOUT_MS: '50',
    };
    const transport = createEventTransportFromEnv('navigation', { env });
    try {
      expect(transport).toBeInstanceOf(HttpEventTransport);
      expect(transport.description).toBe(server.url);
      const event = makeEvent('nav-1');
      const d = { event, body: JSON.stringify(event), attempt: 1 };
      await expect(transport.send(d)).resolves.toEqual({ ok: false, error: 'timeout after 50 ms' });
      await expect(transport.send(d)).resolves.toEqual({ ok: true, status: 200 });
      const req = server.requests[1]!;
      expect(
        verify(
          'the-secret-0123456789abcdef012345',
          req.headers['x-rvc-timestamp'] as string,
          req.body,
          req.headers['x-rvc-signature'] as string,
        ),
      ).toBe(true);
    } finally {
      await transport.close?.();
      await server.close();
    }
  });

  it('reads process.env by default', () => {
    const saved = process.env.RVC_CALLBACK_URL;
    delete process.env.RVC_CALLBACK_URL;
    try {
      expect(createEventTransportFromEnv('nav')).toBeInstanceOf(NoopEventTransport);
    } finally {
      if (saved !== undefined) process.env.RVC_CALLBACK_URL = saved;
    }
  });
});

describe('EventPoster.fromEnv', () => {
  it('runs in no-op mode without RVC_CALLBACK_URL: every event counts as delivered and is logged at debug', async () => {
    const logger = new MemoryLogger();
    const poster = EventPoster.fromEnv('navigation', { env: {}, logger });
    expect(poster.target).toBe('noop');
    const event = makeEvent('nav-1');
    poster.post(event);
    expect(await poster.flush()).toBe(true);
    expect(poster.stats).toMatchObject({ accepted: 1, delivered: 1, dropped: 0 });
    const debug = logger.at('debug', 'event not pushed');
    expect(debug).toHaveLength(1);
    expect(debug[0]!.meta).toMatchObject({
      event_id: event.event_id,
      task_id: 'nav-1',
      server: 'navigation',
    });
    await expect(poster.aclose()).resolves.toEqual({ delivered: 1, dropped: 0, unflushed: 0 });
  });

  it('fails fast on a missing secret', () => {
    expect(() =>
      EventPoster.fromEnv('navigation', { env: { RVC_CALLBACK_URL: 'http://127.0.0.1:1/x' } }),
    ).toThrow(/^RVC_EVENT_SECRET: /);
  });

  it('passes the poster options through', () => {
    expect(() => EventPoster.fromEnv('navigation', { env: {}, lanes: 0 })).toThrow(/^lanes: /);
    expect(() => EventPoster.fromEnv('', { env: {} })).toThrow(/^serverName: /);
  });
});
