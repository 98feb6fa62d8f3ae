import { ConfigError } from '@robot-mcp-kit/core';
import { redactUrlCredentials } from '@robot-mcp-kit/core/rules';

/** Where the capability servers POST their events (the contract's path). */
export const EVENTS_PATH = '/api/agent/events';

/** A capability server to reconcile with: an MCP URL (streamable HTTP, or SSE for `/sse`) or a stdio command. */
export type ServerTarget =
  | { readonly name: string; readonly kind: 'http'; readonly url: URL }
  | {
      readonly name: string;
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
    };

/** What the example reads from its environment (see README.md). */
export interface ReceiverConfig {
  readonly host: string;
  /** 0 picks a free port (the listening line tells which). */
  readonly port: number;
  /** `RVC_EVENT_SECRET` of each server, by server name. Never logged. */
  readonly secrets: Readonly<Record<string, string>>;
  readonly servers: readonly ServerTarget[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const SECRET_PREFIX = 'RVC_SECRET_';

/**
 * Reads `RECEIVER_HOST` (127.0.0.1), `RECEIVER_PORT` (8000), the secrets from `RECEIVER_SECRETS`
 * (`sleeper=s1,navigation=s2`) and `RVC_SECRET_<NAME>`, and the servers from `RECEIVER_SERVERS`
 * (`sleeper=http://127.0.0.1:9100/mcp,navigation=node examples/navigation/dist/main.js`).
 * @throws ConfigError naming the variable; messages never contain a secret.
 */
export function loadReceiverConfig(env: NodeJS.ProcessEnv): ReceiverConfig {
  const host = env.RECEIVER_HOST?.trim() || '127.0.0.1';
  const port = parsePort(env.RECEIVER_PORT);
  const secrets = parseSecrets(env);
  const servers = parseServers(env.RECEIVER_SERVERS ?? '');
  for (const server of servers) {
    if (secrets[server.name] === undefined) {
      throw new ConfigError(
        'RECEIVER_SERVERS',
        `server "${server.name}" has no secret; add ${server.name}=<its RVC_EVENT_SECRET> to RECEIVER_SECRETS ` +
          `or set ${SECRET_PREFIX}${server.name.toUpperCase()}`,
      );
    }
    if (server.kind === 'stdio' && port === 0) {
      throw new ConfigError(
        'RECEIVER_PORT',
        `must be a fixed port when RECEIVER_SERVERS has a stdio command ("${server.name}"): the command is ` +
          'started with RVC_CALLBACK_URL pointing at this app; e.g. RECEIVER_PORT=8000',
      );
    }
  }
  return { host, port, secrets, servers };
}

/** The URL servers post to: `http://<host>:<port>/api/agent/events` (a wildcard host becomes 127.0.0.1). */
export function callbackUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}${EVENTS_PATH}`;
}

/**
 * The environment of a stdio server: the app's, without the app's own variables and secrets,
 * plus `RVC_CALLBACK_URL`/`RVC_EVENT_SECRET` so its events come to this app, over stdio.
 */
export function stdioServerEnv(env: NodeJS.ProcessEnv, url: string, secret: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (
      value === undefined ||
      key.startsWith('RECEIVER_') ||
      key.startsWith('RVC_') ||
      key.startsWith('MCP_')
    ) {
      continue;
    }
    out[key] = value;
  }
  return { ...out, MCP_TRANSPORT: 'stdio', RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: secret };
}

function parsePort(value: string | undefined): number {
  const text = value?.trim() ?? '';
  if (text === '') return 8000;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new ConfigError(
      'RECEIVER_PORT',
      `must be a port number 0-65535 (0 = any free port); got "${text}"`,
    );
  }
  return port;
}

function parseSecrets(env: NodeJS.ProcessEnv): Record<string, string> {
  const secrets: Record<string, string> = {};
  const add = (variable: string, name: string, secret: string): void => {
    checkName(variable, name);
    if (secret === '') throw new ConfigError(variable, `the secret of "${name}" is empty`);
    if (secrets[name] !== undefined && secrets[name] !== secret) {
      throw new ConfigError(variable, `"${name}" has two different secrets; give it one`);
    }
    secrets[name] = secret;
  };
  for (const [name, secret] of pairs('RECEIVER_SECRETS', env.RECEIVER_SECRETS ?? '')) {
    add('RECEIVER_SECRETS', name, secret);
  }
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(SECRET_PREFIX) && value !== undefined) {
      add(key, key.slice(SECRET_PREFIX.length).toLowerCase(), value);
    }
  }
  if (Object.keys(secrets).length === 0) {
    throw new ConfigError(
      'RECEIVER_SECRETS',
      'no server secret is set; set RECEIVER_SECRETS=sleeper=<secret> (comma-separated name=secret pairs) ' +
        'or RVC_SECRET_SLEEPER=<secret>, with the RVC_EVENT_SECRET each server was started with',
    );
  }
  return secrets;
}

function parseServers(value: string): ServerTarget[] {
  const seen = new Set<string>();
  return pairs('RECEIVER_SERVERS', value).map(([name, target]) => {
    checkName('RECEIVER_SERVERS', name);
    if (seen.has(name)) throw new ConfigError('RECEIVER_SERVERS', `"${name}" is listed twice`);
    seen.add(name);
    if (/^https?:\/\//i.test(target)) {
      if (!URL.canParse(target))
        throw new ConfigError(
          'RECEIVER_SERVERS',
          `"${name}": "${redactUrlCredentials(target)}" is not a URL; use http(s)://host:port/mcp`,
        );
      return { name, kind: 'http', url: new URL(target) };
    }
    const [command, ...args] = target.split(/\s+/);
    if (!command) throw new ConfigError('RECEIVER_SERVERS', `"${name}" has no URL or command`);
    return { name, kind: 'stdio', command, args };
  });
}

/** `a=1,b=2` → [['a','1'],['b','2']]; a value may contain '='. Secrets are never echoed back. */
function pairs(variable: string, value: string): [string, string][] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => {
      const at = part.indexOf('=');
      if (at <= 0) {
        // never echo a secret (nor the credentials of a URL)
        const shown = variable === 'RECEIVER_SERVERS' ? ` ("${redactUrlCredentials(part)}")` : '';
        throw new ConfigError(
          variable,
          `entry ${index + 1}${shown} is not name=value; use comma-separated name=value pairs` +
            (variable === 'RECEIVER_SERVERS' ? '' : ' (for a secret containing "," use RVC_SECRET_<NAME>)'),
        );
      }
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    });
}

function checkName(variable: string, name: string): void {
  if (!NAME.test(name)) {
    throw new ConfigError(variable, `"${name}" is not a server name (letters, digits, "_", "-", ".")`);
  }
}
