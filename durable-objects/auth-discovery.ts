/**
 * What an authorization challenge (401, or 403 with a Bearer challenge) means for a
 * server's status, by the MCP authorization spec's discovery: protected-resource
 * metadata (RFC 9728, with the well-known fallbacks) → authorization-server metadata
 * (RFC 8414 / OIDC). A server we could register with (dynamic registration, a client
 * ID metadata document, or a configured clientId) → `needs_auth`; one we cannot →
 * `needs_client_registration`. The sign-in itself: oauth-flow.ts (`POST …/auth`).
 */
import { discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { RemoteServerConfig } from "../src/core/config.js";
import { messageOf } from "../src/core/errors.js";

export interface AuthChallenge {
  status: number;
  headers: Headers;
}

export type AuthVerdict =
  | { state: "needs_auth"; error: string }
  | { state: "needs_client_registration"; error: string }
  | { state: "failed"; error: string };

export async function classifyAuthChallenge(config: RemoteServerConfig, challenge: AuthChallenge, fetchFn: typeof fetch): Promise<AuthVerdict> {
  if (config.oauth === false) {
    return { state: "failed", error: `HTTP ${challenge.status}: the server requires authorization and OAuth is disabled for it (oauth: false)` };
  }
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(new Response(null, { headers: challenge.headers }));
  try {
    const info = await discoverOAuthServerInfo(config.url, { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), fetchFn });
    const metadata = info.authorizationServerMetadata;
    if (!metadata) return { state: "failed", error: `HTTP ${challenge.status}: the server requires authorization but publishes no OAuth metadata` };
    const canRegister =
      Boolean(config.oauth?.clientId) ||
      typeof metadata.registration_endpoint === "string" ||
      (metadata as { client_id_metadata_document_supported?: boolean }).client_id_metadata_document_supported === true;
    return canRegister
      ? { state: "needs_auth", error: "the server requires OAuth authorization" }
      : {
          state: "needs_client_registration",
          error: "the server requires OAuth, its authorization server offers no dynamic client registration: configure oauth.clientId (and clientSecret)",
        };
  } catch (error) {
    return { state: "failed", error: `HTTP ${challenge.status}: OAuth discovery failed: ${messageOf(error)}` };
  }
}
