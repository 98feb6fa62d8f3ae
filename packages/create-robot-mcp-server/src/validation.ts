import { MCP_TRANSPORTS, type McpTransport, toPascalCase } from '@robot-mcp-kit/core/rules';
import { scaffoldToolNameProblem } from '@robot-mcp-kit/core/support';
import { GeneratorError } from './generator.error.js';

/** MCP transports the kit serves (`MCP_TRANSPORT`). */
export const TRANSPORTS = MCP_TRANSPORTS;
export type Transport = McpTransport;

const SERVER_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * A server name is the MCP server name, the npm package name, the file name of the server class
 * and the systemd unit name: 1 to 64 characters of `a-z`, `0-9` and single inner `-`.
 */
export function validateServerName(name: string, input = '--name'): string {
  const value = name.trim();
  if (value.length === 0 || value.length > 64 || !SERVER_NAME.test(value)) {
    const suggestion = suggestServerName(value);
    throw new GeneratorError(
      'GENERATOR_INVALID_NAME',
      input,
      `"${name}" is not a valid server name; use 1 to 64 characters of a-z, 0-9 and "-" ` +
        `(not at the start or end), e.g. "${suggestion}"`,
    );
  }
  return value;
}

/**
 * A tool name the generator can write as a method: lower snake_case (`scan_room`), at most 128
 * characters (the MCP limit), not one the kit reserves (rules in the core package, shared with the
 * CLI and the server).
 */
export function validateToolName(name: string, input = '--tool'): string {
  const value = name.trim();
  const problem = scaffoldToolNameProblem(value, name);
  if (problem) throw new GeneratorError('GENERATOR_INVALID_NAME', input, problem);
  return value;
}

/** One of {@link TRANSPORTS}; `streamable_http` is accepted as a spelling of `streamable-http`. */
export function validateTransport(value: string, input = '--transport'): Transport {
  const normalized = value.trim().toLowerCase().replace('streamable_http', 'streamable-http');
  if (!(TRANSPORTS as readonly string[]).includes(normalized)) {
    throw new GeneratorError(
      'GENERATOR_USAGE',
      input,
      `"${value}" is not a transport; use one of ${TRANSPORTS.join(', ')}`,
    );
  }
  return normalized as Transport;
}

/** A one-line description: no line breaks, at most 200 characters. */
export function validateDescription(value: string, input = '--description'): string {
  const text = value.trim();
  if (/[\r\n]/.test(text) || text.length > 200) {
    throw new GeneratorError(
      'GENERATOR_USAGE',
      input,
      'must be one line of at most 200 characters; shorten it (the README is the place for more)',
    );
  }
  return text;
}

/** `My Nav_Server` → `my-nav-server`: the closest valid server name, for error messages and defaults. */
export function suggestServerName(value: string): string {
  const slug = value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'my-robot';
}

/** `my-nav` → `MyNavServer`; `nav-server` → `NavServer`; `3d-scan` → `Robot3dScanServer`. */
export function serverClassName(serverName: string): string {
  let pascal = toPascalCase(serverName);
  if (/^[0-9]/.test(pascal)) pascal = `Robot${pascal}`;
  return pascal.endsWith('Server') ? pascal : `${pascal}Server`;
}
