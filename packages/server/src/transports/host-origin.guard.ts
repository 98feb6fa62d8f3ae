import { type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackAddress } from './http-options.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const ECHO_MAX = 80;

/** What the guard accepts. */
export interface HostOriginRules {
  /** Extra hosts: `name` (any port), `name:port` or `*`. */
  readonly allowedHosts: readonly string[];
  /** Extra origins (`scheme://host[:port]`) or `*`. */
  readonly allowedOrigins: readonly string[];
  /** The bind address (a specific non-loopback address is accepted as a Host too). */
  readonly bindHost: string;
  /** The listening port, once known (the loopback names are accepted with it). */
  port(): number;
}

/** Why a request was refused, or undefined when it may go on. */
export function checkHostOrigin(req: IncomingMessage, rules: HostOriginRules): string | undefined {
  const host = req.headers.host;
  if (!host) return 'Forbidden: the request has no Host header (DNS-rebinding protection)';
  if (!hostAllowed(host, rules)) {
    return (
      `Forbidden: Host "${cut(host)}" is not allowed (DNS-rebinding protection); ` +
      'to accept it, add it to RMK_ALLOWED_HOSTS (comma-separated name or name:port)'
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, rules)) {
    return (
      `Forbidden: Origin "${cut(origin)}" is not allowed (DNS-rebinding protection); ` +
      'to accept it, add it to RMK_ALLOWED_ORIGINS (comma-separated scheme://host[:port])'
    );
  }
  return undefined;
}

/**
 * Middleware refusing requests whose `Host` or `Origin` is not this server's: HTTP 403 with a
 * JSON-RPC error that names the setting to change. Loopback names with the listening port are
 * always accepted; `RMK_ALLOWED_HOSTS` / `RMK_ALLOWED_ORIGINS` add more.
 */
export function hostOriginGuard(rules: HostOriginRules) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const refusal = checkHostOrigin(req, rules);
    if (refusal === undefined) return next();
    res
      .writeHead(403, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: refusal }, id: null }));
  };
}

function cut(value: string): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > ECHO_MAX ? `${clean.slice(0, ECHO_MAX)}…` : clean;
}

function parseHost(value: string): { name: string; port: string } | undefined {
  try {
    const url = new URL(`http://${value}`);
    if (url.pathname !== '/' || url.username || url.search || url.hash) return undefined;
    return { name: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return undefined;
  }
}

/** What the bind address allows, worked out once per rules object (not on every request). */
interface BindNames {
  /** The bind address these names were worked out from (rules may be a mutable object). */
  readonly bindHost: string;
  /** Bound to every interface (0.0.0.0 or ::). */
  readonly wildcard: boolean;
  /** The loopback names and a specific bind address's name. */
  readonly ownNames: readonly string[];
}

const bindNames = new WeakMap<HostOriginRules, BindNames>();

function bindOf(rules: HostOriginRules): BindNames {
  const known = bindNames.get(rules);
  if (known?.bindHost === rules.bindHost) return known;
  const bind = parseHost(
    rules.bindHost.includes(':') && !rules.bindHost.startsWith('[') ? `[${rules.bindHost}]` : rules.bindHost,
  );
  const wildcard = bind !== undefined && ['0.0.0.0', '[::]'].includes(bind.name);
  const names = {
    bindHost: rules.bindHost,
    wildcard,
    ownNames: [...LOOPBACK_NAMES, ...(bind && !wildcard ? [bind.name] : [])],
  };
  bindNames.set(rules, names);
  return names;
}

function hostAllowed(header: string, rules: HostOriginRules): boolean {
  if (rules.allowedHosts.includes('*')) return true;
  const host = parseHost(header);
  if (!host) return false;
  const port = String(rules.port());
  const { wildcard, ownNames } = bindOf(rules);
  const samePort = host.port === port || host.port === '';
  if (ownNames.includes(host.name) && samePort) return true;
  // Bound to every interface: an address of this machine written as an IP literal is this server
  // (a DNS-rebinding page always comes with a host name of its own).
  if (wildcard && samePort && isIP(host.name.replace(/^\[|\]$/g, '')) !== 0) return true;
  return rules.allowedHosts.some((entry) => {
    const allowed = parseHost(entry);
    return (
      allowed !== undefined &&
      allowed.name === host.name &&
      (allowed.port === '' || allowed.port === host.port)
    );
  });
}

function originAllowed(header: string, rules: HostOriginRules): boolean {
  if (rules.allowedOrigins.includes('*')) return true;
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    return false;
  }
  if (url.origin === 'null') return false;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackAddress(url.hostname)) return true;
  return rules.allowedOrigins.includes(url.origin);
}
