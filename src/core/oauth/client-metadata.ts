/**
 * mcp-edge's OAuth client metadata: what it registers (RFC 7591) and what its client ID
 * metadata document (`/oauth/client-metadata.json`) says. Its redirect URI is the
 * Worker's `/oauth/callback`; a public client (PKCE, no secret).
 */
export const CALLBACK_PATH = "/oauth/callback";
export const CLIENT_METADATA_PATH = "/oauth/client-metadata.json";
export const CLIENT_NAME = "mcp-edge";

export interface ClientMetadataDocument {
  client_id?: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  scope?: string;
}

export function redirectUrlFor(origin: string): string {
  return `${origin}${CALLBACK_PATH}`;
}

/** The default client ID metadata document URL; only https origins qualify (the spec requires https). */
export function defaultClientMetadataUrl(origin: string): string | undefined {
  return origin.startsWith("https://") ? `${origin}${CLIENT_METADATA_PATH}` : undefined;
}

export function clientMetadataFor(origin: string, options: { scope?: string | undefined; tokenEndpointAuthMethod?: string | undefined } = {}): ClientMetadataDocument {
  return {
    client_name: CLIENT_NAME,
    redirect_uris: [redirectUrlFor(origin)],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: options.tokenEndpointAuthMethod ?? "none",
    ...(options.scope ? { scope: options.scope } : {}),
  };
}

/** The document served at {@link CLIENT_METADATA_PATH}: its own URL is the client_id. */
export function clientMetadataDocument(origin: string): ClientMetadataDocument {
  return { client_id: `${origin}${CLIENT_METADATA_PATH}`, ...clientMetadataFor(origin) };
}
