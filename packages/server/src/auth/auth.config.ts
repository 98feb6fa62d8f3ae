import { ConfigError } from '@robot-mcp-kit/core';
import { type AuthOptions } from './auth.options.js';
import { type ToolScopeNames, toolScopeNames } from './tool-scopes.js';

/** The authentication settings resolved from `auth` and the `RMK_AUTH_*` variables. */
export interface ResolvedAuth {
  readonly auth: AuthOptions | undefined;
  /** The scope names of the per-tool check; undefined when tools are not checked per scope. */
  readonly toolScopes: ToolScopeNames | undefined;
}

/** An absolute http(s) URL without fragment; https unless the host is loopback. */
function checkUrl(name: string, raw: string, what: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const loopback = url && /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(url.hostname);
  if (!url || url.hash || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw new ConfigError(
      name,
      `"${raw}" is not ${what}; use an absolute https:// URL without #fragment (http:// only on loopback)`,
    );
  }
  return url;
}

/** `auth` from `RMK_AUTH_ISSUER` and `RMK_RESOURCE_URL` when no option is given. */
function authFromEnv(env: NodeJS.ProcessEnv): AuthOptions | undefined {
  const issuer = env.RMK_AUTH_ISSUER?.trim();
  const resource = env.RMK_RESOURCE_URL?.trim();
  if (!issuer && !resource) return undefined;
  if (!issuer) {
    throw new ConfigError(
      'RMK_RESOURCE_URL',
      'is set but RMK_AUTH_ISSUER is not; set RMK_AUTH_ISSUER to the authorization server that issues tokens for this URL',
    );
  }
  if (!resource) {
    throw new ConfigError(
      'RMK_AUTH_ISSUER',
      'needs RMK_RESOURCE_URL: set it to the public URL of this MCP endpoint (the audience of its tokens), e.g. https://robot-7.example.org/mcp',
    );
  }
  if (env.RMK_AUTH_TOKEN?.trim()) {
    throw new ConfigError(
      'RMK_AUTH_TOKEN',
      'is set beside RMK_AUTH_ISSUER; use one: unset RMK_AUTH_TOKEN to accept the authorization server’s tokens',
    );
  }
  return {
    issuer: checkUrl('RMK_AUTH_ISSUER', issuer, 'an issuer') && issuer, // `iss` is compared as written
    resourceServerUrl: checkUrl('RMK_RESOURCE_URL', resource, 'a resource URL'),
  };
}

/**
 * Resolves authentication: the `auth` option wins over `RMK_AUTH_ISSUER` / `RMK_RESOURCE_URL`; the
 * per-tool scopes are checked with an issuer, or with a verifier given `scopes`.
 * @throws ConfigError naming the option or variable, with the fix
 */
export function resolveAuth(env: NodeJS.ProcessEnv, option: AuthOptions | undefined): ResolvedAuth {
  const auth = option ?? authFromEnv(env);
  if (!auth) return { auth: undefined, toolScopes: undefined };
  if (option) {
    if ((option.issuer === undefined) === (option.verifier === undefined)) {
      throw new ConfigError(
        'auth',
        'give exactly one of issuer (JWT access tokens of an authorization server) and verifier (your own check)',
      );
    }
    if (option.issuer !== undefined) {
      checkUrl('auth.issuer', String(option.issuer), 'an issuer');
      if (!option.resourceServerUrl) {
        throw new ConfigError(
          'auth.resourceServerUrl',
          'is needed with auth.issuer: the public URL of this MCP endpoint, the audience of its tokens',
        );
      }
    }
  }
  const checked = auth.issuer !== undefined || auth.scopes !== undefined;
  return { auth, toolScopes: checked ? toolScopeNames(env, auth.scopes) : undefined };
}
