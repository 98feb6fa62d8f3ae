import {
  ConfigError,
  createEventTransportFromEnv,
  type DeliveryOutcome,
  type EventTransport,
} from '@robot-mcp-kit/core';
import { BrokerEventTransportLoader } from '../../src/events/event-transport.factory.js';
import { type BrokerTransportRequest } from '@robot-mcp-kit/core/transport';
import { makeEvent } from './test-helpers.js';

const SECRET = 'broker-secret-0123456789abcdef0123';
const env = (url: string): NodeJS.ProcessEnv => ({ RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: SECRET });

function delivery() {
  const event = makeEvent('nav-7f3a2b', 1);
  return { event, body: JSON.stringify(event), attempt: 1 };
}

/** A broker-package stand-in at the loader seam: records what it was asked to build. */
function fakeBrokers(requests: BrokerTransportRequest[], opened: string[]) {
  return async () => ({
    createBrokerEventTransport(request: BrokerTransportRequest): EventTransport {
      requests.push(request);
      return {
        description: 'fake',
        open: async () => void opened.push(request.url),
        send: async (): Promise<DeliveryOutcome> => ({ ok: true }),
      };
    },
  });
}

describe('createEventTransportFromEnv with a broker URL', () => {
  it.each(['mqtt://127.0.0.1:1883', 'mqtts://broker.local:8883', 'nats://127.0.0.1:4222'])(
    'selects the brokers package for %s and opens it on open()',
    async (url) => {
      const requests: BrokerTransportRequest[] = [];
      const opened: string[] = [];
      const transport = createEventTransportFromEnv(
        'navigation',
        { env: env(url) },
        fakeBrokers(requests, opened),
      );
      expect(transport).toBeInstanceOf(BrokerEventTransportLoader);
      expect(requests).toHaveLength(0); // nothing loaded before open()
      await transport.open!();
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ secret: SECRET, serverName: 'navigation', messageExpiryS: 600 });
      expect(opened).toEqual([new URL(url).href]);
      await expect(transport.send(delivery())).resolves.toEqual({ ok: true });
    },
  );

  it('names the package and how to install it when it is missing', async () => {
    const missing = async () => {
      throw Object.assign(new Error("Cannot find package '@robot-mcp-kit/brokers'"), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    };
    const transport = createEventTransportFromEnv(
      'navigation',
      { env: env('mqtt://127.0.0.1:1883') },
      missing,
    );
    const err = await transport.open!().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      'RVC_CALLBACK_URL: mqtt://127.0.0.1:1883 needs the package @robot-mcp-kit/brokers: ' +
        'run `npm install @robot-mcp-kit/brokers`, or use an http(s) callback URL',
    );
    const outcome = await transport.send(delivery());
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.stringContaining('npm install @robot-mcp-kit/brokers'),
    });
  });

  it('still needs the secret, and a host', () => {
    expect(() =>
      createEventTransportFromEnv('nav', { env: { RVC_CALLBACK_URL: 'nats://127.0.0.1:4222' } }),
    ).toThrow(/^RVC_EVENT_SECRET: is required/);
    expect(() => createEventTransportFromEnv('nav', { env: env('mqtt://') })).toThrow(
      /^RVC_CALLBACK_URL: needs a broker host/,
    );
  });

  it('passes the poster retry cap as the message expiry', async () => {
    const requests: BrokerTransportRequest[] = [];
    const transport = createEventTransportFromEnv(
      'nav',
      { env: env('mqtt://127.0.0.1:1883'), retryCapMs: 120_500 },
      fakeBrokers(requests, []),
    );
    await transport.open!();
    expect(requests[0]!.messageExpiryS).toBe(121);
  });
});
