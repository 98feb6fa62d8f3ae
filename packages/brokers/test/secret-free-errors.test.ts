import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { JetStreamEventSource, MqttEventSource } from '@robot-mcp-kit/brokers';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { exitOf, reap, requireBuilt } from '../../../test/support/processes.js';

// Issue 28 finding 5: no URL the kit prints at start-up carries its password. The built sleeper
// (`npm run build` first) is started as a real child process with a bad broker, Redis or HTTP
// callback URL; whatever it writes to stdout and stderr before it exits must name the variable
// and never contain the password.
const main = fileURLToPath(new URL('../../../examples/sleeper/dist/main.js', import.meta.url));
const PASSWORD = 'Pw-9f3Kq7-zz';
const SECRET = 'secret-free-errors-0123456789abcdef';
const children: ReturnType<typeof spawn>[] = [];
afterAll(async () => {
  for (const child of children) await reap(child);
});

/** `scheme://robot:<password>@<rest>` with the password spelled as given. */
const withPassword = (scheme: string, rest: string, password = PASSWORD): string =>
  `${scheme}://robot:${password}@${rest}`;

const CASES: [string, string, string][] = [];
// the URL's shape is checked by one parser for both schemes (parseBrokerUrl): with mqtt only
CASES.push(
  ['mqtt: malformed (space in the host)', 'RVC_CALLBACK_URL', withPassword('mqtt', 'bad host:1883')],
  ['mqtt: bad port', 'RVC_CALLBACK_URL', withPassword('mqtt', '127.0.0.1:99999')],
  ['mqtt: "/" in the password', 'RVC_CALLBACK_URL', withPassword('mqtt', '127.0.0.1:1883', `a/${PASSWORD}`)],
);
// what each client library reports, and each scheme's own options: both schemes
for (const scheme of ['mqtt', 'nats']) {
  CASES.push(
    [`${scheme}: nothing listens`, 'RVC_CALLBACK_URL', withPassword(scheme, '127.0.0.1:1')],
    [`${scheme}: unknown host`, 'RVC_CALLBACK_URL', withPassword(scheme, 'no-such-host.invalid:1883')],
    [
      `${scheme}: unknown option`,
      'RVC_CALLBACK_URL',
      `${withPassword(scheme, '127.0.0.1:1')}?token=${PASSWORD}`,
    ],
  );
}
CASES.push(
  ['http: bad port', 'RVC_CALLBACK_URL', withPassword('http', '127.0.0.1:99999/events')],
  [
    'http: "/" in the password',
    'RVC_CALLBACK_URL',
    withPassword('http', '127.0.0.1:8000/e', `a/${PASSWORD}`),
  ],
  ['http: bad scheme', 'RVC_CALLBACK_URL', withPassword('ftp', '127.0.0.1/events')],
  ['redis: bad port', 'RMK_STORE', withPassword('redis', '127.0.0.1:99999/0')],
  ['redis: "/" in the password', 'RMK_STORE', withPassword('redis', '127.0.0.1:6379/0', `a/${PASSWORD}`)],
  ['redis: nothing listens', 'RMK_STORE', withPassword('redis', '127.0.0.1:1/0')],
  ['redis: unknown host', 'RMK_STORE', withPassword('redis', 'no-such-host.invalid:6379/0')],
  ['redis: bad scheme', 'RMK_STORE', withPassword('redix', '127.0.0.1:6379/0')],
);

describe('start-up errors never print a URL password', () => {
  it.each(CASES)(
    '%s',
    async (_name, variable, value) => {
      requireBuilt(main);
      const child = spawn(process.execPath, [main], {
        env: {
          PATH: process.env.PATH ?? '',
          LOG_LEVEL: 'debug',
          RVC_EVENT_SECRET: SECRET,
          [variable]: value,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await exitOf(child);
      expect(code).toBe(1);
      expect(output).toContain(`${variable}:`);
      expect(output).not.toContain(PASSWORD);
      expect(output).not.toContain(PASSWORD.slice(0, 6));
    },
    30_000,
  );
});

describe('broker sources (app side) never print a URL password', () => {
  const receiver = createEventReceiver({ secrets: { s: SECRET }, onEvent: () => undefined });
  it.each([
    ['mqtt', withPassword('mqtt', '127.0.0.1:99999')],
    ['mqtt', withPassword('mqtt', '127.0.0.1:1883', `a/${PASSWORD}`)],
    ['mqtt', withPassword('mqtt', '127.0.0.1:1')],
    ['nats', withPassword('nats', '127.0.0.1:99999')],
    ['nats', withPassword('nats', '127.0.0.1:4222', `a/${PASSWORD}`)],
    ['nats', withPassword('nats', '127.0.0.1:1')],
  ])(
    '%s source at %s',
    async (kind, url) => {
      const error = await (async () => {
        const source =
          kind === 'mqtt'
            ? new MqttEventSource({ url, receiver, clientId: 'app-1', connectTimeoutMs: 3000 })
            : new JetStreamEventSource({ url, receiver, durable: 'app-1', connectTimeoutMs: 3000 });
        await source.start();
        await source.close();
      })().then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      expect(error?.message).toMatch(/^url: /);
      expect(error?.message).not.toContain(PASSWORD.slice(0, 6));
    },
    30_000,
  );
});
