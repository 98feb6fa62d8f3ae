import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ConfigError, EventPoster } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { makeEvent, until } from './test-helpers.js';

// The scale scenario (docs/benchmarks.md): 10,000 tasks posting to a slow receiver. The transport
// bounds the POSTs it has open to what its agent's sockets carry; every send over the bound waits
// as a small resolver instead of a live got request queued in the agent.

/** A real receiver on 127.0.0.1 that answers each POST after `delayMs` and counts what is open. */
class SlowReceiver {
  open = 0;
  most = 0;
  received = 0;
  readonly ports = new Set<number>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(delayMs: number): Promise<SlowReceiver> {
    const holder: { receiver?: SlowReceiver } = {};
    const server = createServer((req, res) => {
      const self = holder.receiver!;
      self.open += 1;
      self.most = Math.max(self.most, self.open);
      self.ports.add(req.socket.remotePort ?? 0);
      req.resume();
      req.on('end', () => {
        setTimeout(() => {
          self.open -= 1;
          self.received += 1;
          res.writeHead(204).end();
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.receiver = new SlowReceiver(server, `http://127.0.0.1:${port}/events`);
    return holder.receiver;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Posts one event for each of `tasks` tasks and waits until the receiver has every one. */
async function deliverAll(
  receiver: SlowReceiver,
  transport: HttpEventTransport,
  tasks: number,
  posterInFlight?: number,
): Promise<void> {
  const poster = new EventPoster({
    serverName: 'nav',
    transport,
    lanes: tasks,
    ...(posterInFlight === undefined ? {} : { maxInFlight: posterInFlight }),
  });
  for (let i = 0; i < tasks; i += 1) poster.post(makeEvent(`nav-${i.toString(16).padStart(6, '0')}`, 1));
  await until(() => receiver.received === tasks, `all ${tasks} events at the receiver`, 20_000);
  await poster.aclose({ timeoutMs: 5000 });
}

describe('HttpEventTransport: requests in flight under a slow receiver', () => {
  let receiver: SlowReceiver;
  beforeEach(async () => {
    receiver = await SlowReceiver.start(15);
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('never has more than its maxInFlight POSTs open, on as many sockets, when the poster asks for more', async () => {
    const transport = new HttpEventTransport({
      url: receiver.url,
      secret: 's',
      serverName: 'nav',
      maxInFlight: 4,
    });
    expect(transport.maxInFlight).toBe(4);
    await deliverAll(receiver, transport, 48, 32);
    expect(receiver.most).toBeLessThanOrEqual(4);
    expect(receiver.ports.size).toBeLessThanOrEqual(4);
  });

  it('keeps 8 by default, which the poster takes as its own limit', async () => {
    const transport = new HttpEventTransport({ url: receiver.url, secret: 's', serverName: 'nav' });
    expect(transport.maxInFlight).toBe(8);
    await deliverAll(receiver, transport, 48);
    expect(receiver.most).toBeLessThanOrEqual(8);
    expect(receiver.most).toBeGreaterThan(1);
  });

  it('lets a send waiting for a slot fail with "transport closed" when closed', async () => {
    const transport = new HttpEventTransport({
      url: receiver.url,
      secret: 's',
      serverName: 'nav',
      maxInFlight: 1,
    });
    const event = makeEvent('nav-000001', 1);
    const first = transport.send({ event, body: JSON.stringify(event), attempt: 1 });
    const second = transport.send({ event, body: JSON.stringify(event), attempt: 1 });
    await until(() => receiver.open === 1, 'the first POST at the receiver');
    await transport.close();
    expect(await second).toEqual({ ok: false, error: 'transport closed' });
    await first;
  });

  it('refuses a maxInFlight that is not a positive integer, naming it', () => {
    for (const maxInFlight of [0, -1, 1.5, Number.NaN]) {
      expect(
        () => new HttpEventTransport({ url: receiver.url, secret: 's', serverName: 'nav', maxInFlight }),
      ).toThrow(ConfigError);
    }
  });
});
