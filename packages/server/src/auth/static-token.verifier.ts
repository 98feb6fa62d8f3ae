import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/** The principal a static token stands for. */
export const STATIC_TOKEN_PRINCIPAL = 'static-token';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Accepts exactly one shared bearer token (`RMK_AUTH_TOKEN`), compared in constant time (both sides
 * hashed to 32 bytes first, so neither content nor length leaks through timing).
 */
export class StaticTokenVerifier implements OAuthTokenVerifier {
  private readonly expected: Buffer;

  constructor(
    token: string,
    private readonly principal: string = STATIC_TOKEN_PRINCIPAL,
  ) {
    this.expected = digest(token);
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    if (!timingSafeEqual(digest(token), this.expected)) {
      return Promise.reject(new InvalidTokenError('the bearer token is not the one this server expects'));
    }
    // The SDK's requireBearerAuth wants an expiry; a static token is valid while the server runs.
    return Promise.resolve({
      token,
      clientId: this.principal,
      scopes: [],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
  }
}
