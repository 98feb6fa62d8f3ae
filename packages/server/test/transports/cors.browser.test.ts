import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, chromium } from 'playwright-core';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { rawRequest } from './raw-http.js';

// A page served from an allowed origin uses the official SDK client (bundled for the browser) in
// Debian's headless Chromium; pages from a refused origin get no CORS headers. robot-ui.test is
// mapped to 127.0.0.1 by Chromium's resolver rules, so the three origins share one page server.
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'cors-browser-token-0123456789abcdef';

let pages: Server;
let pagePort = 0;
let browser: Browser;
let app: RobotMcpApp;
let mcpUrl = '';

const origin = (host: string) => `http://${host}:${pagePort}`;

async function bundleSdkClient(): Promise<string> {
  const out = await build({
    stdin: {
      contents:
        "export { Client } from '@modelcontextprotocol/sdk/client/index.js';\n" +
        "export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';",
      resolveDir: process.cwd(),
      loader: 'js',
    },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'mcp',
    write: false,
    logLevel: 'error',
  });
  return out.outputFiles[0]!.text;
}

async function servePages(script: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/mcp-client.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    } else {
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<!doctype html><script src="/mcp-client.js"></script>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (see .ci/run)`);
  pages = await servePages(await bundleSdkClient());
  pagePort = (pages.address() as AddressInfo).port;
  app = bootstrap(ArmServer, {
    env: {
      RMK_AUTH_TOKEN: TOKEN,
      RMK_ALLOWED_ORIGINS: `${origin('robot-ui.test')},${origin('127.0.0.1')}`,
    },
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
  });
  mcpUrl = (await app.listen()).url!;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--host-resolver-rules=MAP robot-ui.test 127.0.0.1',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await app?.close({ timeoutMs: 500 });
  await new Promise((resolve) => pages?.close(resolve));
});

/** What the bundle puts on the page (`window.mcp`). */
interface PageSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

interface PageOutcome {
  ok: boolean;
  tools?: number;
  sessionId?: string;
  error?: string;
}

/** Opens the page of `pageOrigin` and, in it, connects the SDK client, lists tools, ends the session. */
async function connectFrom(pageOrigin: string): Promise<PageOutcome> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/`);
    return await page.evaluate(
      async ({ url, token }) => {
        const sdk = (globalThis as unknown as { mcp: PageSdk }).mcp;
        const client = new sdk.Client({ name: 'page', version: '1' });
        const transport = new sdk.StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        });
        try {
          await client.connect(transport);
          const { tools } = await client.listTools();
          const sessionId = transport.sessionId;
          await transport.terminateSession();
          await client.close();
          return { ok: true, tools: tools.length, sessionId };
        } catch (error) {
          return { ok: false, error: String(error) };
        }
      },
      { url: mcpUrl, token: TOKEN },
    );
  } finally {
    await context.close();
  }
}

const preflight = (pageOrigin: string, method: string, headers: string) =>
  rawRequest(mcpUrl, {
    method: 'OPTIONS',
    headers: {
      origin: pageOrigin,
      'access-control-request-method': method,
      'access-control-request-headers': headers,
    },
  });

describe('CORS tied to RMK_ALLOWED_ORIGINS, in headless Chromium', () => {
  it.each(['robot-ui.test', '127.0.0.1'])(
    'a page on the allowed origin http://%s:<port> uses the SDK client: session, tools, DELETE',
    async (host) => {
      const outcome = await connectFrom(origin(host));
      expect(outcome).toMatchObject({ ok: true, sessionId: expect.any(String) });
      expect(outcome.tools).toBeGreaterThan(0);
    },
  );

  it('a page on a refused origin (http://localhost:<port>) is stopped by the browser; no session opens', async () => {
    const outcome = await connectFrom(origin('localhost'));
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/Failed to fetch/);
    expect(app.sessionCount).toBe(0);
  });

  it('answers the preflight of an allowed origin with the methods, the SDK headers and the exposed ones', async () => {
    const allowed = origin('robot-ui.test');
    const answer = await preflight(
      allowed,
      'POST',
      'content-type,authorization,mcp-session-id,mcp-protocol-version,last-event-id,mcp-param-x',
    );
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(allowed);
    expect(String(answer.headers['access-control-allow-methods']).split(',')).toEqual([
      'GET',
      'POST',
      'DELETE',
    ]);
    const headers = String(answer.headers['access-control-allow-headers']).split(',');
    for (const name of [
      'content-type',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
    ])
      expect(headers).toContain(name);
    expect(headers).toContain('mcp-param-x');
    // the actual request (here refused: no token) carries the CORS headers, so the page can read the 401
    const unauthorized = await rawRequest(mcpUrl, {
      method: 'POST',
      headers: { origin: allowed, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(allowed);
    expect(unauthorized.headers['access-control-expose-headers']).toBe(
      'Mcp-Session-Id,Mcp-Protocol-Version,WWW-Authenticate',
    );
  });

  it('gives a refused origin no CORS header: its preflight is a 403 naming RMK_ALLOWED_ORIGINS', async () => {
    const answer = await preflight(origin('localhost'), 'POST', 'content-type,authorization');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('RMK_ALLOWED_ORIGINS');
    expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const plain = await rawRequest(mcpUrl, {
      method: 'POST',
      headers: { origin: origin('localhost'), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(Object.keys(plain.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
