import { type RequestHandler, Router } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { type AuthOptions } from './auth.options.js';
import { StaticTokenVerifier } from './static-token.verifier.js';

/** What the HTTP listener mounts for authentication. */
export interface AuthMiddleware {
  /** Protected resource metadata routes (`/.well-known/oauth-protected-resource/...`), if any. */
  readonly metadata?: RequestHandler;
  /** Checks the bearer token of every MCP request (sets `req.auth`). */
  readonly guard: RequestHandler;
  /** `static-token` or `verifier`, for logs. */
  readonly mode: 'static-token' | 'verifier';
}

/**
 * Builds the bearer-token middleware from the resolved settings: the pluggable verifier of `auth`
 * (with `expectedResource` and protected resource metadata when `resourceServerUrl` is given), or
 * the static `RMK_AUTH_TOKEN`; undefined when neither is configured.
 */
export function authMiddleware(settings: {
  auth: AuthOptions | undefined;
  authToken: string | undefined;
}): AuthMiddleware | undefined {
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
    const guard = requireBearerAuth({
      verifier: auth.verifier,
      ...(auth.requiredScopes ? { requiredScopes: auth.requiredScopes } : {}),
      ...(resource ? { expectedResource: resource } : {}),
      ...(metadata && resource
        ? { resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource) }
        : {}),
    });
    return { guard, mode: 'verifier', ...(metadata ? { metadata: Router().use(metadata) } : {}) };
  }
  if (authToken !== undefined) {
    return {
      guard: requireBearerAuth({ verifier: new StaticTokenVerifier(authToken) }),
      mode: 'static-token',
    };
  }
  return undefined;
}
