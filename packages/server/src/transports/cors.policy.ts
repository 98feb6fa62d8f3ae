import { type IncomingMessage, type ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';

/** Request headers a browser page may send (what the MCP SDK clients send, 2025 and 2026 era). */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'content-type',
  'accept',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-wire-codec',
];

/** Response headers a browser page may read. */
export const CORS_EXPOSED_HEADERS: readonly string[] = [
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'WWW-Authenticate',
];

/** The methods of the MCP endpoints. */
export const CORS_METHODS: readonly string[] = ['GET', 'POST', 'DELETE'];

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;
/** 2026-era clients name tool arguments in `Mcp-Param-<name>` headers. */
const PARAM_HEADER = /^mcp-param-[a-z0-9_.-]+$/;

type Next = (err?: unknown) => void;

/** The serialized origin of an `Origin` header, or undefined when it has none (opaque, malformed). */
function originOf(header: string): string | undefined {
  try {
    const origin = new URL(header).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The requested `Mcp-Param-*` headers of a preflight (their names depend on the tool). */
function requestedParamHeaders(req: IncomingMessage): string[] {
  const raw = req.headers['access-control-request-headers'] ?? '';
  return raw
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => PARAM_HEADER.test(name));
}

/**
 * CORS for browser pages on the origins of `RMK_ALLOWED_ORIGINS` (`*`: any origin), with the `cors`
 * package: preflights answered (the methods and the MCP SDK's request headers), `Mcp-Session-Id`,
 * `Mcp-Protocol-Version` and `WWW-Authenticate` exposed. Any other origin gets no CORS header at
 * all, and its preflight a 403 naming the variable. No credentials mode (cookies are not used;
 * `Authorization` is an allowed header).
 */
export function corsPolicy(allowedOrigins: readonly string[]) {
  const any = allowedOrigins.includes('*');
  const allowed = (origin: string | undefined) =>
    origin !== undefined && (any || allowedOrigins.includes(origin));
  const middleware = cors<IncomingMessage>((req, callback) => {
    const options: CorsOptions = {
      origin: true,
      methods: [...CORS_METHODS],
      allowedHeaders: [...CORS_ALLOWED_HEADERS, ...requestedParamHeaders(req)],
      exposedHeaders: [...CORS_EXPOSED_HEADERS],
      maxAge: PREFLIGHT_MAX_AGE_S,
    };
    callback(null, options);
  });
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    const header = req.headers.origin;
    if (header === undefined) return next();
    if (allowed(originOf(header))) return middleware(req, res, next);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!preflight) return next();
    res.writeHead(403, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message:
            'Forbidden: this origin may not call the server from a browser page (CORS); ' +
            'to allow it, add it to RMK_ALLOWED_ORIGINS (comma-separated scheme://host[:port])',
        },
        id: null,
      }),
    );
  };
}
