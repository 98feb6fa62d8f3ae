import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/core';
import { callbackUrl, loadReceiverConfig, stdioServerEnv } from '../src/receiver.config.js';

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadReceiverConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadReceiverConfig', () => {
  it('reads secrets from RECEIVER_SECRETS and RVC_SECRET_<NAME>, servers from RECEIVER_SERVERS', () => {
    const config = loadReceiverConfig({
      RECEIVER_SECRETS: ' sleeper=s1=with=equals , navigation=s2 ',
      RVC_SECRET_PERCEPTION: 'p3',
      RVC_SECRET_NAVIGATION: 's2',
      RECEIVER_SERVERS:
        'sleeper=http://127.0.0.1:9100/mcp?token=x, navigation=node  examples/navigation/dist/main.js,perception=https://robot.local/sse',
      RECEIVER_PORT: '8123',
      RECEIVER_HOST: '0.0.0.0',
    });
    expect(config.host).toBe('0.0.0.0');
    expect(config.port).toBe(8123);
    expect(config.secrets).toEqual({ sleeper: 's1=with=equals', navigation: 's2', perception: 'p3' });
    expect(config.servers).toEqual([
      { name: 'sleeper', kind: 'http', url: new URL('http://127.0.0.1:9100/mcp?token=x') },
      { name: 'navigation', kind: 'stdio', command: 'node', args: ['examples/navigation/dist/main.js'] },
      { name: 'perception', kind: 'http', url: new URL('https://robot.local/sse') },
    ]);
  });

  it('defaults to 127.0.0.1:8000 and no servers', () => {
    expect(loadReceiverConfig({ RVC_SECRET_SLEEPER: 's' })).toEqual({
      host: '127.0.0.1',
      port: 8000,
      secrets: { sleeper: 's' },
      servers: [],
    });
    expect(loadReceiverConfig({ RVC_SECRET_SLEEPER: 's', RECEIVER_PORT: '0' }).port).toBe(0);
  });

  it.each([
    [{}, 'RECEIVER_SECRETS', 'no server secret is set'],
    [{ RECEIVER_SECRETS: 'sleeper' }, 'RECEIVER_SECRETS', 'entry 1 is not name=value'],
    [{ RECEIVER_SECRETS: '=s1' }, 'RECEIVER_SECRETS', 'entry 1 is not name=value'],
    [{ RECEIVER_SECRETS: 'sleeper=' }, 'RECEIVER_SECRETS', 'the secret of "sleeper" is empty'],
    [{ RECEIVER_SECRETS: 'bad name=x' }, 'RECEIVER_SECRETS', '"bad name" is not a server name'],
    [
      { RECEIVER_SECRETS: 'sleeper=a', RVC_SECRET_SLEEPER: 'b' },
      'RVC_SECRET_SLEEPER',
      'two different secrets',
    ],
    [{ RVC_SECRET_SLEEPER: 's', RECEIVER_PORT: 'http' }, 'RECEIVER_PORT', 'must be a port number'],
    [{ RVC_SECRET_SLEEPER: 's', RECEIVER_PORT: '70000' }, 'RECEIVER_PORT', 'must be a port number'],
    [
      { RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: 'nav=http://x' },
      'RECEIVER_SERVERS',
      'server "nav" has no secret',
    ],
    [
      { RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: 'sleeper' },
      'RECEIVER_SERVERS',
      'entry 1 ("sleeper") is not',
    ],
    [{ RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: 'sleeper=http://[x' }, 'RECEIVER_SERVERS', 'is not a URL'],
    [{ RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: 'sleeper=' }, 'RECEIVER_SERVERS', 'has no URL or command'],
    [
      { RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: 'sleeper=node a.js,sleeper=node b.js' },
      'RECEIVER_SERVERS',
      'listed twice',
    ],
    [
      { RVC_SECRET_SLEEPER: 's', RECEIVER_PORT: '0', RECEIVER_SERVERS: 'sleeper=node main.js' },
      'RECEIVER_PORT',
      'must be a fixed port',
    ],
  ])('rejects %j: %s', (env, variable, message) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(message);
  });

  it('never puts a secret in an error message', () => {
    const secret = 'hunter2-very-secret';
    for (const env of [
      { RECEIVER_SECRETS: `sleeper=a,${secret}` },
      { RECEIVER_SECRETS: `sleeper=${secret}`, RVC_SECRET_SLEEPER: 'other' },
      { RECEIVER_SECRETS: `sleeper=${secret}`, RECEIVER_PORT: 'x' },
      // The password of a server URL (issue 13.8): a bad port, a missing name.
      { RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: `sleeper=http://admin:${secret}@127.0.0.1:99999/mcp` },
      { RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: `http://admin:${secret}@127.0.0.1:9100/mcp` },
    ]) {
      expect(configError(env).message).not.toContain(secret);
    }
    expect(
      configError({ RVC_SECRET_SLEEPER: 's', RECEIVER_SERVERS: `sleeper=http://admin:${secret}@h:99999/mcp` })
        .message,
    ).toContain('http://[redacted]@h:99999/mcp');
  });
});

describe('callbackUrl', () => {
  it('is the events URL, reachable from the same machine', () => {
    expect(callbackUrl('127.0.0.1', 8000)).toBe('http://127.0.0.1:8000/api/agent/events');
    expect(callbackUrl('0.0.0.0', 8000)).toBe('http://127.0.0.1:8000/api/agent/events');
    expect(callbackUrl('::1', 8001)).toBe('http://[::1]:8001/api/agent/events');
  });
});

describe('stdioServerEnv', () => {
  it("passes the app's environment without its secrets and transport, plus the server's callback", () => {
    const env = stdioServerEnv(
      {
        PATH: '/bin',
        NAV_SPEED_MPS: '2',
        RECEIVER_SECRETS: 'a=b',
        RVC_SECRET_SLEEPER: 'x',
        RVC_EVENT_SECRET: 'y',
        MCP_TRANSPORT: 'sse',
        MCP_PORT: '1',
        UNSET: undefined,
      },
      'http://127.0.0.1:8000/api/agent/events',
      'nav-secret',
    );
    expect(env).toEqual({
      PATH: '/bin',
      NAV_SPEED_MPS: '2',
      MCP_TRANSPORT: 'stdio',
      RVC_CALLBACK_URL: 'http://127.0.0.1:8000/api/agent/events',
      RVC_EVENT_SECRET: 'nav-secret',
    });
  });
});
