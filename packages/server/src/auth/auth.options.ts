import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type ToolScopeNames } from './tool-scopes.js';

/**
 * Bearer-token authentication of the HTTP transports as an OAuth 2.1 resource server: every request
 * must carry `Authorization: Bearer <token>`, checked by the SDK's `requireBearerAuth` with either
 * the JWT validation of an `issuer` (its JWKS) or a `verifier` of your own.
 */
export interface AuthOptions {
  /**
   * The authorization server whose JWT access tokens are accepted (its issuer identifier, e.g.
   * `https://auth.example.org`; variable `RMK_AUTH_ISSUER`). Its metadata and JWKS are discovered
   * from it at start-up; tokens must be signed with its keys, carry its `iss`, `resourceServerUrl`
   * as `aud`, and not be expired. Needs `resourceServerUrl`. Turns on the per-tool scopes.
   */
  issuer?: string | URL;
  /** Checks a token and says who it belongs to (`clientId` becomes the principal of the tasks it starts). */
  verifier?: OAuthTokenVerifier;
  /** Scopes every token must have, whatever it calls. */
  requiredScopes?: string[];
  /**
   * The scope names of the per-tool check (defaults `robot:read`, `robot:actuate`, `robot:rearm`;
   * variables `RMK_SCOPE_READ`, `RMK_SCOPE_ACTUATE`, `RMK_SCOPE_REARM`). Given with a `verifier`,
   * turns the per-tool check on for its tokens too.
   */
  scopes?: Partial<ToolScopeNames>;
  /** After a JWKS fetch, no refetch for this long even for an unknown key id (default 30000 ms). */
  jwksCooldownMs?: number;
  /**
   * The public URL of this MCP endpoint (RFC 8707 resource, e.g. `https://robot.example.org/mcp`;
   * variable `RMK_RESOURCE_URL`). Tokens must be issued for it (`AuthInfo.resource`, the JWT's
   * `aud`), and it is the `resource` of the protected resource metadata.
   */
  resourceServerUrl?: URL;
  /**
   * Metadata of the authorization server that issues the tokens (discovered when `issuer` is given).
   * With `resourceServerUrl`, the server publishes `/.well-known/oauth-protected-resource/...` (the
   * SDK's `mcpAuthMetadataRouter`) and points to it in `WWW-Authenticate`.
   */
  oauthMetadata?: OAuthMetadata;
  /** Scopes listed in the protected resource metadata (default with `issuer`: the per-tool scope names). */
  scopesSupported?: string[];
  /** A name for the protected resource metadata. */
  resourceName?: string;
}
