import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, type RobotMcpApp, Tool } from '@robot-mcp-kit/server';
import { decodeJwt } from 'jose';
import { AuthorizationServer } from '../../packages/server/test/auth/fixtures/authorization.server.js';
import { CLIENT_TIMEOUT_MS, ROOT } from '../support/real-clients.js';

/*
 * mcp-remote signs in against the kit's server protected by JWT auth (RMK_AUTH_ISSUER,
 * RMK_RESOURCE_URL): it finds the authorization server from the protected resource metadata,
 * registers itself (dynamic client registration), opens the "browser" ($BROWSER: a script that
 * follows the redirects through the test authorization server's automatic sign-in and consent to
 * mcp-remote's callback), exchanges the code with PKCE for a JWT access token bound to the server
 * (RFC 8707) and then carries the official SDK client's calls (over stdio) to the server.
 */

@CapabilityServer({ name: 'signed-in', version: '0.0.1' })
class SignedInServer {
  readonly calls: string[] = [];

  @Tool({ description: 'Where the robot is', annotations: { readOnlyHint: true } })
  getPose(): string {
    this.calls.push('get_pose');
    return 'x=0';
  }

  @Tool({ description: 'Blink the light', actuates: true })
  blink(): string {
    this.calls.push('blink');
    return 'blinked';
  }
}

const require = createRequire(import.meta.url);
const PROXY = resolve(dirname(require.resolve('mcp-remote/package.json')), 'dist/proxy.js');
const BROWSER_SCRIPT = resolve(ROOT, 'test/clients/auto-consent.browser.mjs');

let as: AuthorizationServer;
let app: RobotMcpApp;
let instance: SignedInServer;
let url = '';
const work = mkdtempSync(join(tmpdir(), 'rmk-mcp-remote-oauth-'));

/** A free port on 127.0.0.1: the resource URL (the token's audience) names it before the start. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

beforeAll(async () => {
  as = await AuthorizationServer.start();
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  instance = new SignedInServer();
  app = bootstrap(SignedInServer, {
    env: { RMK_AUTH_ISSUER: as.issuer, RMK_RESOURCE_URL: url },
    instance,
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port },
  });
  await app.listen();
  const browser = join(work, 'browser.sh');
  writeFileSync(browser, `#!/bin/sh\nexec "${process.execPath}" "${BROWSER_SCRIPT}" "$1"\n`);
  chmodSync(browser, 0o755);
}, CLIENT_TIMEOUT_MS);

afterAll(async () => {
  await app?.close({ timeoutMs: 500 });
  await as?.close();
  rmSync(work, { recursive: true, force: true });
});

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

/** mcp-remote with a config dir of its own, driven by the official SDK client over stdio. */
async function throughMcpRemote(name: string) {
  const configDir = mkdtempSync(join(work, `${name}-config-`));
  const browserLog = join(work, `${name}-browser.log`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROXY, url, '--transport', 'http-only'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: work,
      MCP_REMOTE_CONFIG_DIR: configDir,
      BROWSER: join(work, 'browser.sh'),
      RMK_BROWSER_LOG: browserLog,
    },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: `through-mcp-remote-${name}`, version: '1' });
  clients.push(client);
  const browsed = () => (existsSync(browserLog) ? readFileSync(browserLog, 'utf8').trim().split('\n') : []);
  await client.connect(transport).catch((error: unknown) => {
    throw new Error(`${String(error)}\nmcp-remote said:\n${log}\nthe browser went:\n${browsed().join('\n')}`);
  });
  const visited = () => browsed().filter((line) => !line.startsWith('#'));
  return { client, configDir, visited, log: () => log };
}

/** The access token mcp-remote stored after its sign-in. */
function storedAccessToken(configDir: string): string {
  const files = readdirSync(configDir, { recursive: true }) as string[];
  const tokens = files.find((file) => file.endsWith('tokens.json'));
  if (!tokens) throw new Error(`no tokens.json under ${configDir}: ${files.join(', ')}`);
  return (JSON.parse(readFileSync(join(configDir, tokens), 'utf8')) as { access_token: string }).access_token;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('mcp-remote signs in with OAuth against RMK_AUTH_ISSUER', () => {
  it(
    'registers, signs in through the browser, then lists and calls tools with a token for this server',
    async () => {
      instance.calls.length = 0;
      as.consentScopes = undefined;
      const { client, configDir, visited } = await throughMcpRemote('full');
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['get_pose', 'blink']));
      expect(textOf((await client.callTool({ name: 'get_pose', arguments: {} })) as CallToolResult)).toBe(
        'x=0',
      );
      expect(textOf((await client.callTool({ name: 'blink', arguments: {} })) as CallToolResult)).toBe(
        'blinked',
      );
      expect(instance.calls).toEqual(['get_pose', 'blink']);
      // The sign-in went through the browser: the authorization URL, the automatic consent, the callback.
      const pages = visited();
      expect(pages[0]).toContain(`${as.issuer}/auth?`);
      expect(new URL(pages[0]!).searchParams.get('resource')).toBe(url);
      expect(pages.some((page) => page.includes('/interaction/'))).toBe(true);
      expect(pages.at(-1)).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+\/oauth\/callback\?code=/);
      const claims = decodeJwt(storedAccessToken(configDir));
      expect(claims).toMatchObject({ iss: as.issuer, aud: url });
      expect(String(claims.scope).split(' ')).toEqual(
        expect.arrayContaining(['robot:read', 'robot:actuate']),
      );
    },
    CLIENT_TIMEOUT_MS,
  );

  it(
    'with a token that lacks robot:actuate: reads, asks to step up for the actuating call, and runs nothing when the operator again grants only robot:read',
    async () => {
      instance.calls.length = 0;
      as.consentScopes = ['robot:read'];
      const consentsBefore = as.consents;
      const remote = await throughMcpRemote('read-only');
      const { client, configDir } = remote;
      expect(String(decodeJwt(storedAccessToken(configDir)).scope).split(' ')).not.toContain('robot:actuate');
      expect(textOf((await client.callTool({ name: 'get_pose', arguments: {} })) as CallToolResult)).toBe(
        'x=0',
      );
      const refused = await client.callTool({ name: 'blink', arguments: {} }).then(
        (result) => JSON.stringify(result),
        (error: unknown) => String(error),
      );
      // The 403 insufficient_scope challenge named the scope: mcp-remote signed in again asking for
      // it (step-up); the operator granted robot:read only, so the call ends refused.
      expect(remote.log()).toMatch(/Authorizing with the scope the server asked for: [^\n]*robot:actuate/);
      // the first sign-in and at least one step-up (mcp-remote may ask once more before it gives up)
      expect(as.consents - consentsBefore).toBeGreaterThanOrEqual(2);
      expect(refused).toContain('Unauthorized');
      expect(instance.calls).toEqual(['get_pose']);
    },
    CLIENT_TIMEOUT_MS,
  );
});
