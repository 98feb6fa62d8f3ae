import { type RequestHandler } from 'express';
import { InsufficientScopeError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type Logger } from '@robot-mcp-kit/core';

/** Paths an OAuth client probes on the MCP server's origin (discovery, registration, endpoints). */
const OAUTH_PATHS = /^\/(?:\.well-known\/|(?:register|authorize|token|revoke)(?:\/|$))/;

/** Where the WWW-Authenticate challenge points and what it asks for. */
export interface Challenge {
  readonly requiredScopes?: string[];
  readonly resourceMetadataUrl?: string;
}

/**
 * The verifier as the SDK's `requireBearerAuth` calls it: a rejection it would answer with 500 (a
 * plain `Error`, the SDK's `ServerError`, anything that is not `InvalidTokenError` or
 * `InsufficientScopeError`) becomes `InvalidTokenError`, so the client gets 401 with
 * `WWW-Authenticate` and signs in again; the verifier's own message goes to the log only.
 */
export function refusalsAs401(verifier: OAuthTokenVerifier, logger: Logger): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token) {
      try {
        return await verifier.verifyAccessToken(token);
      } catch (error) {
        if (error instanceof InvalidTokenError || error instanceof InsufficientScopeError) throw error;
        logger.warn(
          'the token verifier rejected a token with an error that is not InvalidTokenError; answered 401 ' +
            '(throw InvalidTokenError from @modelcontextprotocol/sdk for a refused token)',
          { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) },
        );
        throw new InvalidTokenError('The token could not be verified; obtain a new token');
      }
    },
  };
}

/** The `WWW-Authenticate` value of a 401, as `requireBearerAuth` builds it. */
function challengeHeader(description: string, challenge: Challenge): string {
  let value = `Bearer error="invalid_token", error_description="${description}"`;
  if (challenge.requiredScopes?.length) value += `, scope="${challenge.requiredScopes.join(' ')}"`;
  if (challenge.resourceMetadataUrl) value += `, resource_metadata="${challenge.resourceMetadataUrl}"`;
  return value;
}

/**
 * A request without `Authorization` gets 401 whose body and `WWW-Authenticate` error_description
 * say how to send the token (the SDK's says only "Missing Authorization header").
 */
export function missingBearer(mode: 'static-token' | 'verifier', challenge: Challenge): RequestHandler {
  const description =
    mode === 'static-token'
      ? 'Missing Authorization header; send Authorization: Bearer <token> with the token set in RMK_AUTH_TOKEN on the server'
      : 'Missing Authorization header; send Authorization: Bearer <access token> issued by the authorization server';
  return (req, res, next) => {
    if (req.headers.authorization) return next();
    res.set('WWW-Authenticate', challengeHeader(description, challenge));
    res.status(401).json({ error: 'invalid_token', error_description: description });
  };
}

/**
 * OAuth discovery and registration paths (`/.well-known/*`, `/register`, `/authorize`, `/token`,
 * `/revoke`) the metadata router does not serve answer 404 before authentication: this server is
 * no authorization server, and a 401 there sends OAuth clients into dynamic client registration.
 */
export function oauthPathsNotFound(mode: 'static-token' | 'verifier'): RequestHandler {
  const hint =
    mode === 'static-token'
      ? 'this server uses a static bearer token, not OAuth: send Authorization: Bearer <token> (RMK_AUTH_TOKEN)'
      : 'this server is not an OAuth authorization server; get tokens from the authorization server';
  return (req, res, next) => {
    if (!OAUTH_PATHS.test(req.path)) return next();
    res.status(404).json({ error: 'not_found', hint });
  };
}
