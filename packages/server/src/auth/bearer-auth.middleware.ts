import { type RequestHandler, Router } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { type Logger } from '@robot-mcp-kit/core';
import { type AuthOptions } from './auth.options.js';
import { missingBearer, oauthPathsNotFound, refusalsAs401 } from './bearer-refusals.js';
import { StaticTokenVerifier } from './static-token.verifier.js';

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
  /** `static-token` or `verifier`, for logs. */
  readonly mode: 'static-token' | 'verifier';
}

/**
 * Builds the bearer-token middleware from the resolved settings: the pluggable verifier of `auth`
 * (with `expectedResource` and protected resource metadata when `resourceServerUrl` is given), or
 * the static `RMK_AUTH_TOKEN`; undefined when neither is configured. Every rejection of the
 * verifier is a 401 (see {@link refusalsAs401}).
 */
export function authMiddleware(
  settings: { auth: AuthOptions | undefined; authToken: string | undefined },
  logger: Logger,
): AuthMiddleware | undefined {
  const { auth, authToken } = settings;
  if (auth) {
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
    const challenge = {
      ...(auth.requiredScopes ? { requiredScopes: auth.requiredScopes } : {}),
      ...(metadata && resource
        ? { resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource) }
        : {}),
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
      mode: 'verifier',
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
