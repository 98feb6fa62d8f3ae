import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventPoster } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { makeEvent, until } from './test-helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

/** What the hostile app did with one response. */
interface Answer {
  written: number;
  closed: boolean;
}

/** A real node:http app that answers 200 and then a body of `bodyBytes` (Infinity: endless, or 'hang' after 1 byte). */
async function hostileApp(
  body: number | 'hang',
): Promise<{ server: Server; url: string; answers: Answer[] }> {
  const answers: Answer[] = [];
  const chunk = Buffer.alloc(64 * 1024, 'z');
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const answer: Answer = { written: 0, closed: false };
      answers.push(answer);
      res.on('close', () => {
        answer.closed = true;
      });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      if (body === 'hang') {
        res.write('z');
        answer.written = 1;
        return;
      }
      const pump = (): void => {
        while (!answer.closed && answer.written < body) {
          answer.written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!answer.closed) res.end();
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/api/agent/events`, answers };
}

function delivery() {
  const event = makeEvent('nav-7f3a2b', 1);
  return { event, body: JSON.stringify(event), attempt: 1 };
}

describe('HttpEventTransport response bodies (issue 13.2)', () => {
  let app: Awaited<ReturnType<typeof hostileApp>> | undefined;
  let transport: HttpEventTransport | undefined;
  afterEach(async () => {
    await transport?.close();
    app?.server.closeAllConnections();
    await new Promise<void>((resolve) => app?.server.close(() => resolve()) ?? resolve());
    app = undefined;
    transport = undefined;
  });

  it('acknowledges on the status and stops reading a 128 MB answer after a few KiB', async () => {
    app = await hostileApp(128 * MiB);
    transport = new HttpEventTransport({ url: app.url, secret: 's', serverName: 'nav', timeoutMs: 30_000 });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 3; i += 1) {
      await expect(transport.send(delivery())).resolves.toEqual({ ok: true, status: 200 });
    }
    await until(
      () => app!.answers.length === 3 && app!.answers.every((a) => a.closed),
      'the answers cut off',
      20_000,
    );
    // The client closed each connection long before the app could push 128 MB into it.
    for (const answer of app.answers) expect(answer.written).toBeLessThan(16 * MiB);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * MiB);
  });

  it('stops reading an endless answer: twenty sends complete and the heap does not grow', async () => {
    app = await hostileApp(Infinity);
    transport = new HttpEventTransport({ url: app.url, secret: 's', serverName: 'nav', timeoutMs: 30_000 });
    await transport.send(delivery()); // got loaded, agent warm
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 20; i += 1) {
      await expect(transport.send(delivery())).resolves.toEqual({ ok: true, status: 200 });
    }
    await until(
      () => app!.answers.length === 21 && app!.answers.every((a) => a.closed),
      'every endless answer cut off by the client',
      20_000,
    );
    for (const answer of app.answers) expect(answer.written).toBeLessThan(16 * MiB);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * MiB);
  });

  it('frees the send slot at once when the body never ends; the timeout ends the request', async () => {
    app = await hostileApp('hang');
    transport = new HttpEventTransport({ url: app.url, secret: 's', serverName: 'nav', timeoutMs: 5000 });
    const poster = new EventPoster({ serverName: 'nav', transport, maxInFlight: 1, lanes: 1 });
    poster.post(makeEvent('nav-1', 1));
    poster.post(makeEvent('nav-1', 2));
    poster.post(makeEvent('nav-1', 3, 'task_done'));
    // With one send slot, the three events go through while the first answers are still open.
    await until(() => poster.stats.delivered === 3, 'all three delivered', 4000);
    expect(app.answers.filter((a) => !a.closed).length).toBeGreaterThan(0);
    // The request timeout then closes the hanging answers.
    await until(() => app!.answers.every((a) => a.closed), 'the hanging answers closed', 20_000);
    expect(poster.stats).toMatchObject({ delivered: 3, retried: 0, dropped: 0 });
    await poster.aclose({ timeoutMs: 0 });
  });
});
