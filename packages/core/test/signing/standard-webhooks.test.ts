import { randomBytes } from 'node:crypto';
import { ConfigError, createEventTransportFromEnv, type EventTransport, verify } from '@robot-mcp-kit/core';
import { HttpEventTransport, StandardWebhooksSigner } from '@robot-mcp-kit/core/transport';
import { Webhook } from 'standardwebhooks';
import { makeEvent, TestServer } from '../events/test-helpers.js';

// The kit's Standard Webhooks headers checked by the independent `standardwebhooks` package.
const RVC_SECRET = 'rvc-secret-0123456789abcdef0123456789';
const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

function delivery() {
  const event = makeEvent('slee-a1b2c3', 1);
  return { event, body: JSON.stringify(event.toJSON()), attempt: 1 };
}

function headersOf(request: TestServer['requests'][number]): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
}

describe('Standard Webhooks signing of HTTP events', () => {
  let server: TestServer;
  let transport: EventTransport | undefined;
  beforeEach(async () => {
    server = await TestServer.start();
  });
  afterEach(async () => {
    await transport?.close?.();
    transport = undefined;
    await server.close();
  });

  it('adds webhook-id/-timestamp/-signature that the standardwebhooks package verifies, beside X-RVC-*', async () => {
    const secret = newSecret();
    transport = new HttpEventTransport({
      url: server.url,
      secret: RVC_SECRET,
      serverName: 'sleeper',
      standardWebhooks: { secrets: [secret] },
    });
    const d = delivery();
    await expect(transport.send(d)).resolves.toMatchObject({ ok: true });
    const request = server.requests[0]!;
    const headers = headersOf(request);
    expect(headers['webhook-id']).toBe(d.event.event_id);
    expect(headers['webhook-timestamp']).toBe(headers['x-rvc-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(request.body.toString('utf8'), headers)).toEqual(JSON.parse(d.body));
    expect(verify(RVC_SECRET, headers['x-rvc-timestamp'], request.body, headers['x-rvc-signature'])).toBe(
      true,
    );
  });

  it('signs with every secret during a rotation: old and new verify, another does not', async () => {
    const [oldSecret, nextSecret] = [newSecret(), newSecret()];
    transport = new HttpEventTransport({
      url: server.url,
      secret: RVC_SECRET,
      serverName: 'sleeper',
      standardWebhooks: { secrets: [oldSecret, nextSecret] },
    });
    await transport.send(delivery());
    const request = server.requests[0]!;
    const headers = headersOf(request);
    const body = request.body.toString('utf8');
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(nextSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(oldSecret).verify(body.replace('"seq":1', '"seq":2'), headers)).toThrow(
      /No matching signature/,
    );
  });

  it('matches the package signature byte for byte for a fixed id and timestamp', () => {
    const secret = newSecret();
    const timestamp = 1_767_225_600;
    const body = '{"payload":{"zone":"küche"}}';
    const ours = new StandardWebhooksSigner({ secrets: [secret] }).headers('evt-1', timestamp, body);
    expect(ours['webhook-signature']).toBe(
      new Webhook(secret).sign('evt-1', new Date(timestamp * 1000), body),
    );
  });

  it('sends only the spec headers by default', async () => {
    transport = new HttpEventTransport({ url: server.url, secret: RVC_SECRET, serverName: 'sleeper' });
    await transport.send(delivery());
    expect(Object.keys(server.requests[0]!.headers).filter((h) => h.startsWith('webhook-'))).toEqual([]);
  });

  it('is switched on by RVC_STANDARD_WEBHOOK_SECRETS (space-separated for rotation)', async () => {
    const [a, b] = [newSecret(), newSecret()];
    transport = createEventTransportFromEnv('sleeper', {
      env: {
        RVC_CALLBACK_URL: server.url,
        RVC_EVENT_SECRET: RVC_SECRET,
        RVC_STANDARD_WEBHOOK_SECRETS: `${a} ${b}`,
      },
    });
    await transport.send(delivery());
    const request = server.requests[0]!;
    expect(() => new Webhook(b).verify(request.body.toString('utf8'), headersOf(request))).not.toThrow();
  });

  it.each(['not-base64!', 'whsec_c2hvcnQ=', ''])('refuses the secret %p with the fix', (bad) => {
    const make = () =>
      createEventTransportFromEnv('sleeper', {
        env: {
          RVC_CALLBACK_URL: server.url,
          RVC_EVENT_SECRET: RVC_SECRET,
          RVC_STANDARD_WEBHOOK_SECRETS: bad || ' , ',
        },
      });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/^RVC_STANDARD_WEBHOOK_SECRETS: /);
    expect(() => new StandardWebhooksSigner({ secrets: [] })).toThrow(/standardWebhooks\.secrets: must list/);
  });
});
