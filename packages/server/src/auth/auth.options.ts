import { type OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { type OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * Bearer-token authentication of the HTTP transports with a verifier of your own (an OAuth 2.1
 * resource server): every request must carry `Authorization: Bearer <token>` that `verifier`
 * accepts, checked by the SDK's `requireBearerAuth`.
 */
export interface AuthOptions {
  /** Checks a token and says who it belongs to (`clientId` becomes the principal of the tasks it starts). */
  verifier: OAuthTokenVerifier;
  /** Scopes every token must have. */
  requiredScopes?: string[];
  /**
   * The public URL of this MCP endpoint (RFC 8707 resource, e.g. `https://robot.example.org/mcp`).
   * Tokens must be issued for it (`AuthInfo.resource`), and it is the `resource` of the protected
   * resource metadata.
   */
  resourceServerUrl?: URL;
  /**
   * Metadata of the authorization server that issues the tokens. With `resourceServerUrl`, the
   * server publishes `/.well-known/oauth-protected-resource/...` (the SDK's `mcpAuthMetadataRouter`)
   * and points to it in `WWW-Authenticate`.
   */
  oauthMetadata?: OAuthMetadata;
  /** Scopes listed in the protected resource metadata. */
  scopesSupported?: string[];
  /** A name for the protected resource metadata. */
  resourceName?: string;
}
