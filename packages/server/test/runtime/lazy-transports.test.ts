import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const SLEEPER = resolve('examples/sleeper/dist/main.js');
const HTTP_MODULES = [
  '/server/dist/bundle/chunks/http.listener-', // the kit's HTTP listener: a lazy chunk of the bundle
  '@modelcontextprotocol/sdk/dist/esm/server/webStandardStreamableHttp.js',
  '@modelcontextprotocol/sdk/dist/esm/server/sse.js',
  '/@modelcontextprotocol/server/dist/', // the MCP 2026-07-28 leg (v2 SDK)
];

let dir: string;

/**
 * An `--import` module registering resolve hooks that append every resolved URL to `out`, and every
 * `require()` request as `cjs:<request>`.
 */
function writeRecorder(out: string): string {
  const hooks = join(dir, 'record.hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(out)}, result.url + '\\n');
  return result;
}
`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
// require() calls too (CommonJS packages and createRequire): recorded as "cjs:<request>"
const load = Module._load;
Module._load = function (request, ...rest) {
  appendFileSync(${JSON.stringify(out)}, 'cjs:' + request + '\\n');
  return load.call(this, request, ...rest);
};
`,
  );
  return register;
}

/** Runs the built sleeper until it logs `ready`, then stops it; returns the modules it loaded. */
async function modulesLoadedBy(env: Record<string, string>, ready: RegExp): Promise<string[]> {
  const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const register = writeRecorder(out);
  const child = spawn(process.execPath, ['--import', pathToFileURL(register).href, SLEEPER], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no start-up line in 30 s: ${log}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (ready.test(log)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => fail(new Error(`exited ${String(code)}: ${log}`)));
  });
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
  return readFileSync(out, 'utf8').split('\n').filter(Boolean);
}

describe('transports load on demand', () => {
  beforeAll(() => {
    if (!existsSync(SLEEPER)) throw new Error(`${SLEEPER} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'lazy-transports-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a stdio server never loads the HTTP listener nor the SDK HTTP/SSE transports', async () => {
    const loaded = await modulesLoadedBy({}, /MCP server on stdio/);
    expect(loaded.some((url) => url.includes('/sdk/dist/esm/server/stdio.js'))).toBe(true);
    for (const module of HTTP_MODULES) expect(loaded.filter((url) => url.includes(module))).toEqual([]);
    // no callback URL: got, loaded by the HTTP event transport on its first send, is never loaded
    expect(loaded.filter((url) => url.includes('/node_modules/got/'))).toEqual([]);
    // no callback URL, so no HTTP event transport: node:http, node:https and tls stay unloaded
    expect(loaded.filter((url) => /^(cjs:)?(node:)?(http|https|tls)$/.test(url))).toEqual([]);
    // no RMK_STORE: the Redis adapters and client are never loaded (one process, in memory)
    expect(loaded.filter((url) => /\/redis\/(src|dist)\/|\/node_modules\/@?redis/.test(url))).toEqual([]);
    // the kit's logger is winston (issue 29), on a stdio server too
    expect(loaded.some((url) => url.startsWith('cjs:'))).toBe(true); // require() is recorded
    expect(loaded.some((url) => url.includes('/node_modules/winston/lib/winston.js'))).toBe(true);
  }, 60_000);

  it('RMK_STORE loads the Redis adapters, and only then', async () => {
    const loaded = await modulesLoadedBy({ RMK_STORE: 'redis://127.0.0.1:6379/0' }, /MCP server on stdio/);
    expect(loaded.some((url) => /\/redis\/dist\/redis-task\.store\.js$/.test(url))).toBe(true);
    expect(loaded.some((url) => /\/redis\/dist\/redis-event\.outbox\.js$/.test(url))).toBe(true);
  }, 60_000);

  it('a streamable-HTTP server loads them when it listens', async () => {
    const loaded = await modulesLoadedBy({ MCP_TRANSPORT: 'streamable-http', MCP_PORT: '0' }, /"url":"http/);
    for (const module of HTTP_MODULES) {
      expect(loaded.some((url) => url.includes(module))).toBe(true);
    }
  }, 60_000);
});
