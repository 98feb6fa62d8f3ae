import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EVENT_SECRET_FIX,
  LOG_LEVELS as CORE_LOG_LEVELS,
  MCP_TRANSPORTS,
  redactUrl,
  weakSecretAllowed,
  weakSecretReason,
} from '@robot-mcp-kit/core/rules';
import { BROKER_SCHEMES } from '@robot-mcp-kit/core/transport';

export type CheckStatus = 'ok' | 'info' | 'warn' | 'fail';

/** One line of the doctor's report. Only `fail` makes `doctor` exit 1. */
export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do about it (for warn and fail). */
  readonly fix?: string;
}

/** The variables the checks read, with where each came from. */
export type EnvView = Readonly<Record<string, string | undefined>>;

export const MIN_NODE = '20.19.0';
/** The transports and log levels the server accepts (rules in the core package). */
export const TRANSPORTS: readonly string[] = MCP_TRANSPORTS;
export const LOG_LEVELS: readonly string[] = CORE_LOG_LEVELS;

const ok = (name: string, message: string): CheckResult => ({ name, status: 'ok', message });
const info = (name: string, message: string): CheckResult => ({ name, status: 'info', message });
const warn = (name: string, message: string, fix: string): CheckResult => ({
  name,
  status: 'warn',
  message,
  fix,
});
const fail = (name: string, message: string, fix: string): CheckResult => ({
  name,
  status: 'fail',
  message,
  fix,
});

/** Node.js must be at least {@link MIN_NODE} (the kit's `engines`). */
export function checkNode(version: string): CheckResult {
  const clean = version.replace(/^v/, '');
  if (compareVersions(clean, MIN_NODE) >= 0) return ok('node', `v${clean} (>= ${MIN_NODE})`);
  return fail(
    'node',
    `v${clean} is too old; the kit needs Node.js >= ${MIN_NODE}`,
    'install Node.js 20.19 or newer (e.g. nvm install 20)',
  );
}

/** The project: depends on the kit, is installed, is built. */
export function checkProject(root: string): CheckResult[] {
  let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as typeof pkg;
  } catch (err) {
    return [
      fail(
        'project',
        `cannot read ${join(root, 'package.json')}: ${(err as Error).message}`,
        'run doctor in the project directory, or pass --project <dir>',
      ),
    ];
  }
  if (!pkg.dependencies?.['@robot-mcp-kit/server']) {
    return [
      warn(
        'project',
        `${root} does not depend on @robot-mcp-kit/server`,
        'run doctor in a project made by create-robot-mcp-server, or pass --project <dir>',
      ),
    ];
  }
  const results = [ok('project', root)];
  results.push(
    existsSync(join(root, 'node_modules', '@robot-mcp-kit', 'server'))
      ? ok('install', 'node_modules has @robot-mcp-kit/server')
      : fail('install', 'the dependencies are not installed', 'run npm install'),
  );
  results.push(
    existsSync(join(root, 'dist', 'main.js'))
      ? ok('build', 'dist/main.js exists')
      : warn('build', 'dist/main.js does not exist yet', 'run npm run build before npm start'),
  );
  return results;
}

/**
 * The transport src/main.ts falls back to (`process.env.MCP_TRANSPORT ??= '...'`, as generated), or
 * the kit's default, stdio.
 */
export function defaultTransport(root: string): string {
  try {
    const main = readFileSync(join(root, 'src', 'main.ts'), 'utf8');
    return /MCP_TRANSPORT\s*\?\?=\s*['"]([a-z_-]+)['"]/.exec(main)?.[1] ?? 'stdio';
  } catch {
    return 'stdio';
  }
}

/** MCP_TRANSPORT, MCP_HOST and MCP_PORT, as runServer() will read them. */
export function checkTransport(env: EnvView, fallback = 'stdio'): CheckResult[] {
  const results: CheckResult[] = [];
  const rawKind = env.MCP_TRANSPORT?.trim() || '';
  const given = rawKind || fallback;
  const kind = given === 'streamable_http' ? 'streamable-http' : given;
  if (!TRANSPORTS.includes(kind)) {
    results.push(
      fail(
        'MCP_TRANSPORT',
        `"${given}" is not a transport`,
        `set MCP_TRANSPORT to one of ${TRANSPORTS.join(', ')}`,
      ),
    );
  } else {
    results.push(ok('MCP_TRANSPORT', rawKind ? kind : `unset: ${kind} (the server's default)`));
  }
  const http = kind === 'sse' || kind === 'streamable-http';
  const host = env.MCP_HOST?.trim() || '127.0.0.1';
  if (!http) results.push(info('MCP_HOST', 'not used by stdio'));
  else if (isLoopback(host)) results.push(ok('MCP_HOST', `${host} (loopback only)`));
  else
    results.push(
      warn(
        'MCP_HOST',
        `${host} lets other machines call the tools, which move the robot`,
        'keep MCP_HOST=127.0.0.1 and put an authenticating proxy in front for remote clients',
      ),
    );
  const rawPort = env.MCP_PORT?.trim();
  if (rawPort === undefined || rawPort === '') {
    results.push(http ? ok('MCP_PORT', 'unset: 9100') : info('MCP_PORT', 'not used by stdio'));
  } else if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) {
    results.push(
      fail(
        'MCP_PORT',
        `"${rawPort}" is not a port`,
        'set MCP_PORT to a number from 0 to 65535 (0 picks a free one)',
      ),
    );
  } else if (Number(rawPort) > 0 && Number(rawPort) < 1024) {
    results.push(
      warn(
        'MCP_PORT',
        `${rawPort} is a privileged port`,
        'use a port >= 1024 (the systemd unit drops the capability to bind below it)',
      ),
    );
  } else {
    results.push(ok('MCP_PORT', rawPort === '0' ? '0: a free port is picked at start' : rawPort));
  }
  return results;
}

/** What the event checks found; `url` is set when the callback URL is usable, for the probe. */
export interface EventChecks {
  readonly results: CheckResult[];
  readonly url?: string;
}

/** RVC_CALLBACK_URL, RVC_EVENT_SECRET and RVC_EVENT_TIMEOUT_MS, as the event poster reads them. */
export function checkEvents(env: EnvView): EventChecks {
  const rawUrl = env.RVC_CALLBACK_URL?.trim() ?? '';
  const { result, url } = checkCallbackUrl(rawUrl);
  const results = [result, checkEventSecret(env.RVC_EVENT_SECRET, rawUrl, env)];
  const timeout = checkEventTimeout(env.RVC_EVENT_TIMEOUT_MS?.trim());
  if (timeout) results.push(timeout);
  return { results, url };
}

/** The (trimmed) callback URL: unset is standalone mode; `url` is set when it is usable. */
function checkCallbackUrl(rawUrl: string): { result: CheckResult; url?: string } {
  if (rawUrl === '') {
    return {
      result: info(
        'RVC_CALLBACK_URL',
        'unset: events are only logged (fine standalone; set it to push events to the app)',
      ),
    };
  }
  const problem = urlProblem(rawUrl);
  if (problem) {
    return {
      result: fail(
        'RVC_CALLBACK_URL',
        problem,
        "set it to the app's events endpoint, e.g. http://127.0.0.1:8000/api/agent/events, " +
          'or to a broker, e.g. mqtt://127.0.0.1:1883 or nats://127.0.0.1:4222',
      ),
    };
  }
  return { result: ok('RVC_CALLBACK_URL', redactUrl(rawUrl)), url: rawUrl };
}

/** The secret is required with a callback URL, and must be long (the server's rule, in core). */
function checkEventSecret(secret: string | undefined, rawUrl: string, env: EnvView): CheckResult {
  if (secret === undefined || secret.trim() === '') {
    if (rawUrl !== '') {
      return fail(
        'RVC_EVENT_SECRET',
        'is not set, but RVC_CALLBACK_URL is: the server will refuse to start',
        "set it to the secret the receiving app holds for this server (e.g. its entry in the app's mcp.yaml)",
      );
    }
    return info('RVC_EVENT_SECRET', 'unset (only needed with RVC_CALLBACK_URL)');
  }
  if (rawUrl === '') return info('RVC_EVENT_SECRET', 'set, but unused while RVC_CALLBACK_URL is unset');
  const weak = weakSecretReason(secret);
  if (weak !== undefined) return weakSecret(weak, env);
  return ok('RVC_EVENT_SECRET', `set (${secret.length} characters)`);
}

/** A short secret fails (the server refuses it) unless RMK_ALLOW_WEAK_SECRET allows it. */
function weakSecret(reason: string, env: EnvView): CheckResult {
  let allowed: boolean;
  try {
    allowed = weakSecretAllowed(env);
  } catch (error) {
    return fail('RVC_EVENT_SECRET', reason, (error as Error).message);
  }
  if (allowed) {
    return warn(
      'RVC_EVENT_SECRET',
      `${reason} (started anyway: RMK_ALLOW_WEAK_SECRET=1)`,
      'use a long random secret, e.g. openssl rand -hex 32, in both places',
    );
  }
  return fail('RVC_EVENT_SECRET', `${reason}: the server will refuse to start`, EVENT_SECRET_FIX);
}

/** The (trimmed) timeout, if set, must be a positive integer; no line when it is fine or unset. */
function checkEventTimeout(timeout: string | undefined): CheckResult | undefined {
  if (timeout === undefined || timeout === '' || (/^\d+$/.test(timeout) && Number(timeout) > 0)) {
    return undefined;
  }
  return fail(
    'RVC_EVENT_TIMEOUT_MS',
    `"${timeout}" is not a positive number of milliseconds`,
    'set it to e.g. 10000, or unset it',
  );
}

/** LOG_LEVEL, if set, must be a level the logger knows (it falls back to info otherwise). */
export function checkLogLevel(env: EnvView): CheckResult {
  const level = env.LOG_LEVEL?.trim();
  if (level === undefined || level === '') return ok('LOG_LEVEL', 'unset: info');
  if (LOG_LEVELS.includes(level.toLowerCase())) return ok('LOG_LEVEL', level.toLowerCase());
  return warn(
    'LOG_LEVEL',
    `"${level}" is not a level; the logger uses info`,
    `set LOG_LEVEL to one of ${LOG_LEVELS.join(', ')}`,
  );
}

/** The URL schemes the server accepts in RVC_CALLBACK_URL: http(s) and the brokers'. */
export const CALLBACK_SCHEMES: readonly string[] = ['http:', 'https:', ...BROKER_SCHEMES];

function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${redactUrl(value)}" is not a URL`;
  }
  if (!CALLBACK_SCHEMES.includes(url.protocol)) {
    const names = CALLBACK_SCHEMES.map((scheme) => scheme.replace(':', ''));
    return `"${redactUrl(value)}" must use ${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
  }
  return undefined;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((part) => parseInt(part, 10) || 0);
  const pb = b.split('.').map((part) => parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff > 0 ? 1 : -1;
  }
  return 0;
}
