import { type RequestHandler, Router } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { type Clock, type Logger } from '@robot-mcp-kit/core';
import { type AuthOptions } from './auth.options.js';
import { missingBearer, oauthPathsNotFound, refusalsAs401 } from './bearer-refusals.js';
import { discoverIssuer, JwtAccessTokenVerifier } from './jwt-access-token.verifier.js';
import { StaticTokenVerifier } from './static-token.verifier.js';
import { type ToolScopeNames } from './tool-scopes.js';

/** What the HTTP listener mounts for authentication. */
export interface AuthMiddleware {
  /**
   * Before authentication: the protected resource metadata routes
   * (`/.well-known/oauth-protected-resource/...`), if configured, then 404 for every other OAuth
   * discovery or registration path.
   */
  readonly metadata: RequestHandler;
  /** Checks the bearer token of every MCP request (sets `req.auth`). */
  readonly guard: RequestHandler;
  /** `static-token`, `jwt` (an issuer's JWT access tokens) or `verifier`, for logs. */
  readonly mode: 'static-token' | 'jwt' | 'verifier';
  /** Where the protected resource metadata is served, when it is (the challenges point to it). */
  readonly resourceMetadataUrl?: string;
}

/** The settings {@link authMiddleware} builds from (resolved by `httpSecurityFromEnv`). */
export interface AuthSettings {
  readonly auth: AuthOptions | undefined;
  readonly authToken: string | undefined;
  readonly toolScopes: ToolScopeNames | undefined;
}

/**
 * Builds the bearer-token middleware from the resolved settings: JWT validation of `auth.issuer`
 * (its metadata and JWKS discovered now) or the pluggable verifier of `auth` (with
 * `expectedResource` and protected resource metadata when `resourceServerUrl` is given), or the
 * static `RMK_AUTH_TOKEN`; undefined when none is configured. Every rejection of the verifier is a
 * 401 (see {@link refusalsAs401}).
 * @throws ConfigError when the issuer's metadata cannot be read
 */
export async function authMiddleware(
  settings: AuthSettings,
  logger: Logger,
  clock?: Clock,
): Promise<AuthMiddleware | undefined> {
  const { authToken } = settings;
  const auth = settings.auth && (await withIssuer(settings.auth, settings.toolScopes, clock));
  if (auth?.verifier) {
    const resource = auth.resourceServerUrl;
    const metadata =
      resource && auth.oauthMetadata
        ? mcpAuthMetadataRouter({
            oauthMetadata: auth.oauthMetadata,
            resourceServerUrl: resource,
            ...(auth.scopesSupported ? { scopesSupported: auth.scopesSupported } : {}),
            ...(auth.resourceName ? { resourceName: auth.resourceName } : {}),
          })
        : undefined;
    const resourceMetadataUrl =
      metadata && resource ? getOAuthProtectedResourceMetadataUrl(resource) : undefined;
    const challenge = {
      ...(auth.requiredScopes ? { requiredScopes: auth.requiredScopes } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    };
    const guard = requireBearerAuth({
      verifier: refusalsAs401(auth.verifier, logger),
      ...(resource ? { expectedResource: resource } : {}),
      ...challenge,
    });
    const before = Router();
    if (metadata) before.use(metadata);
    return {
      metadata: before.use(oauthPathsNotFound('verifier')),
      guard: Router().use(missingBearer('verifier', challenge), guard),
      mode: auth.issuer !== undefined ? 'jwt' : 'verifier',
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    };
  }
  if (authToken !== undefined) {
    const guard = requireBearerAuth({ verifier: new StaticTokenVerifier(authToken) });
    return {
      metadata: oauthPathsNotFound('static-token'),
      guard: Router().use(missingBearer('static-token', {}), guard),
      mode: 'static-token',
    };
  }
  return undefined;
}

/**
 * With `issuer`: its metadata discovered, the JWT verifier of its JWKS, the metadata served as the
 * protected resource's, and the per-tool scope names as its `scopes_supported` (unless given).
 */
async function withIssuer(
  auth: AuthOptions,
  names: ToolScopeNames | undefined,
  clock: Clock | undefined,
): Promise<AuthOptions> {
  if (auth.issuer === undefined || !auth.resourceServerUrl) return auth;
  const issuer = String(auth.issuer);
  const metadata = await discoverIssuer(issuer, 'RMK_AUTH_ISSUER (auth.issuer)');
  const verifier = new JwtAccessTokenVerifier({
    issuer,
    jwksUri: new URL(metadata.jwks_uri as string),
    resource: auth.resourceServerUrl,
    ...(auth.jwksCooldownMs !== undefined ? { jwksCooldownMs: auth.jwksCooldownMs } : {}),
    ...(clock ? { clock } : {}),
  });
  return {
    ...auth,
    verifier,
    oauthMetadata: auth.oauthMetadata ?? metadata,
    ...(auth.scopesSupported || !names ? {} : { scopesSupported: [names.read, names.actuate, names.rearm] }),
  };
}
