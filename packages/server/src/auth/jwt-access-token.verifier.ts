import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Clock, ConfigError, systemClock } from '@robot-mcp-kit/core';

/** How long the JWKS is not refetched after a fetch, by default (jose's default too): 30 s. */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;

/** Settings of {@link JwtAccessTokenVerifier}. */
export interface JwtVerifierSettings {
  /** The authorization server's issuer identifier (the `iss` every token must carry). */
  readonly issuer: string;
  /** Its JWKS (from its metadata's `jwks_uri`). */
  readonly jwksUri: URL;
  /** This server's resource URL: every token's `aud` must contain it (RFC 8707). */
  readonly resource: URL;
  /** After a fetch, the JWKS is not fetched again for this long, even for an unknown `kid`. */
  readonly jwksCooldownMs?: number;
  readonly clock?: Clock;
}

/**
 * Validates JWT access tokens (RFC 9068) of one authorization server: the signature with a key of its
 * JWKS (fetched, cached, and refetched when a token names a key it does not hold, so rotation needs
 * no restart), `typ` `at+jwt`, `iss` the issuer, `aud` this server's resource URL, `exp` (and `nbf`)
 * against the clock. The principal is `client_id` (else `sub`); the scopes are the `scope` claim.
 */
export class JwtAccessTokenVerifier implements OAuthTokenVerifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;
  private readonly clock: Clock;

  constructor(private readonly settings: JwtVerifierSettings) {
    this.keys = createRemoteJWKSet(settings.jwksUri, {
      cooldownDuration: settings.jwksCooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
    });
    this.clock = settings.clock ?? systemClock;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.resource.href,
        typ: 'at+jwt',
        currentDate: new Date(this.clock.now()),
      }));
    } catch (error) {
      throw new InvalidTokenError(refusalOf(error));
    }
    const principal = stringClaim(payload.client_id) ?? payload.sub;
    if (principal === undefined || payload.exp === undefined) {
      throw new InvalidTokenError('The token has no client_id or sub, or no exp');
    }
    return {
      token,
      clientId: principal,
      scopes: (stringClaim(payload.scope) ?? '').split(' ').filter((s) => s !== ''),
      expiresAt: payload.exp,
      resource: this.settings.resource,
    };
  }
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Why jose refused a token, as the 401's error_description (no token content echoed). */
function refusalOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The token was not issued for this resource (aud)';
    if (error.claim === 'iss') return 'The token was not issued by the expected authorization server (iss)';
    return `The token's ${error.claim} claim is not valid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is not valid';
  if (error instanceof errors.JWKSNoMatchingKey)
    return "The token is not signed with a key of the issuer's JWKS";
  if (error instanceof errors.JOSEError) return `The token could not be verified (${error.code})`;
  throw error; // the JWKS could not be fetched, ...: refusalsAs401 logs it and answers 401
}

/**
 * Reads the authorization server's metadata (RFC 8414, then OpenID Connect discovery) and checks it
 * names the same issuer and a `jwks_uri`.
 * @throws ConfigError naming `variable` when it cannot be read or does not fit
 */
export async function discoverIssuer(issuer: string, variable: string): Promise<OAuthMetadata> {
  let metadata: OAuthMetadata | undefined;
  try {
    metadata = (await discoverAuthorizationServerMetadata(issuer)) as OAuthMetadata | undefined;
  } catch (error) {
    throw new ConfigError(
      variable,
      `the metadata of the authorization server "${issuer}" could not be read (${String(error)}); ` +
        'check the URL and that the server is up',
    );
  }
  if (!metadata) {
    throw new ConfigError(
      variable,
      `"${issuer}" serves no authorization server metadata (/.well-known/oauth-authorization-server or ` +
        '/.well-known/openid-configuration); set it to the issuer identifier of your authorization server',
    );
  }
  if (metadata.issuer !== issuer || typeof metadata.jwks_uri !== 'string') {
    throw new ConfigError(
      variable,
      `the metadata at "${issuer}" names issuer "${metadata.issuer}"` +
        `${typeof metadata.jwks_uri === 'string' ? '' : ' and no jwks_uri'}; set it to exactly the issuer ` +
        'the metadata names, of a server that publishes its keys (jwks_uri)',
    );
  }
  return metadata;
}
