/**
 * The session's side of signing in to a remote MCP server, with the MCP SDK's `auth()`:
 * start (discovery → registration or a client ID metadata document or the configured
 * client → PKCE → the authorization URL, kept as a pending flow in the principal's
 * vault), finish (the code exchange; only then are credentials committed), and the
 * diagnosis that stores nothing.
 */
import { auth, discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { RemoteServerConfig } from "../src/core/config.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";
import { clientMetadataFor, defaultClientMetadataUrl, redirectUrlFor } from "../src/core/oauth/client-metadata.js";
import { expiresAtFrom } from "../src/core/oauth/expiry.js";
import { selectScope } from "../src/core/oauth/scope.js";
import { base64Url, formatState } from "../src/core/oauth/state.js";
import { redactUrl } from "../src/core/url-policy.js";
import type { ClientInformation, PendingFlow, StoredCredentials, StoredTokens } from "./credential-records.js";
import type { CredentialVault } from "./credential-vault.js";
import { FlowProvider, type ChallengeInfo } from "./oauth-provider.js";

export interface FlowContext {
  vault: DurableObjectStub<CredentialVault>;
  principal: string;
  sessionId: string;
  fetchFn: typeof fetch;
}

export interface BeginInput {
  server: string;
  config: RemoteServerConfig;
  key: string;
  /** The Worker's public origin: the redirect URI and the default client metadata URL hang off it. */
  origin: string;
  challenge: ChallengeInfo | undefined;
}

function configuredClient(config: RemoteServerConfig): ClientInformation | undefined {
  const oauth = config.oauth || undefined;
  if (!oauth?.clientId) return undefined;
  return {
    client_id: oauth.clientId,
    ...(oauth.clientSecret ? { client_secret: oauth.clientSecret } : {}),
    ...(oauth.tokenEndpointAuthMethod ? { token_endpoint_auth_method: oauth.tokenEndpointAuthMethod } : {}),
  };
}

function metadataFor(config: RemoteServerConfig, origin: string): OAuthClientMetadata {
  const oauth = config.oauth || undefined;
  return clientMetadataFor(origin, { scope: oauth?.scope, tokenEndpointAuthMethod: oauth?.tokenEndpointAuthMethod }) as OAuthClientMetadata;
}

/** Starts an authorization: nothing but the pending flow is stored. */
export async function beginAuthorization(ctx: FlowContext, input: BeginInput): Promise<{ authorizationUrl: string }> {
  const { config, origin } = input;
  const oauth = config.oauth || undefined;
  // RPC types cannot carry zod's open objects: the vault returns what its schemas parsed.
  const held = (await ctx.vault.read(input.key, config.url)) as StoredCredentials | undefined;
  const nonce = crypto.getRandomValues(new Uint8Array(18));
  const state = formatState(ctx.sessionId, nonce);
  const redirectUrl = redirectUrlFor(origin);
  const clientMetadataUrl = oauth?.clientMetadataUrl ?? defaultClientMetadataUrl(origin);
  const provider = new FlowProvider({
    redirectUrl,
    state,
    clientMetadata: metadataFor(config, origin),
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    // A configured client wins; else the registration this principal already holds for the server.
    ...((configuredClient(config) ?? held?.client) ? { client: configuredClient(config) ?? held!.client } : {}),
  });
  const scope = selectScope({
    challenge: input.challenge?.scope,
    stepUp: input.challenge?.status === 403 && input.challenge.error === "insufficient_scope",
    configured: oauth?.scope,
    granted: held?.tokens?.scope,
  });
  try {
    const result = await auth(provider, {
      serverUrl: config.url,
      ...(scope ? { scope } : {}),
      ...(input.challenge?.resourceMetadataUrl ? { resourceMetadataUrl: input.challenge.resourceMetadataUrl } : {}),
      fetchFn: ctx.fetchFn,
    });
    if (result !== "REDIRECT" || !provider.authorizationUrl || !provider.verifier || !provider.client) {
      throw new Error("the authorization server did not lead to an authorization URL");
    }
  } catch (error) {
    const metadata = provider.discovery?.authorizationServerMetadata as { registration_endpoint?: unknown } | undefined;
    if (metadata && !provider.client && typeof metadata.registration_endpoint !== "string") {
      throw new McpEdgeError(
        "badRequest",
        `server "${input.server}": its authorization server offers no dynamic client registration: configure oauth.clientId (and oauth.clientSecret)`,
        { server: input.server, status: "needs_client_registration" },
      );
    }
    throw new McpEdgeError("upstreamError", `server "${input.server}": starting OAuth failed: ${messageOf(error).slice(0, 300)}`, { server: input.server });
  }
  const flow: PendingFlow = {
    nonce: base64Url(nonce),
    principal: ctx.principal,
    sessionId: ctx.sessionId,
    server: input.server,
    key: input.key,
    serverUrl: config.url,
    createdAt: Date.now(),
    redirectUrl,
    codeVerifier: provider.verifier,
    client: provider.client,
    ...(provider.discovery ? { discovery: provider.discovery } : {}),
    ...(scope ? { scope } : {}),
  };
  await ctx.vault.beginFlow(flow);
  return { authorizationUrl: provider.authorizationUrl.href };
}

/** Exchanges the code; the credentials to commit, or a thrown error (then nothing was stored). */
export async function finishAuthorization(ctx: FlowContext, flow: PendingFlow, code: string, config: RemoteServerConfig): Promise<StoredCredentials> {
  const origin = new URL(flow.redirectUrl).origin;
  const provider = new FlowProvider({
    redirectUrl: flow.redirectUrl,
    clientMetadata: metadataFor(config, origin),
    client: flow.client,
    codeVerifier: flow.codeVerifier,
    ...(flow.discovery ? { discovery: flow.discovery } : {}),
  });
  const result = await auth(provider, { serverUrl: flow.serverUrl, authorizationCode: code, fetchFn: ctx.fetchFn });
  const tokens = provider.tokensReceived;
  if (result !== "AUTHORIZED" || !tokens || !provider.client || !provider.discovery) throw new Error("the token endpoint returned no tokens");
  const now = Date.now();
  const expiresAt = expiresAtFrom(now, tokens.expires_in);
  // RFC 6749 §5.1: a response without `scope` granted what was asked.
  const stored: StoredTokens = { ...(tokens as StoredTokens), ...(tokens.scope === undefined && flow.scope ? { scope: flow.scope } : {}) };
  return {
    serverUrl: flow.serverUrl,
    client: provider.client,
    discovery: provider.discovery,
    tokens: stored,
    obtainedAt: now,
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

export interface DebugReport {
  url: string;
  initialize: { status?: number; contentType?: string; wwwAuthenticate?: string; error?: string };
  challenge?: { scope?: string; error?: string; resourceMetadataUrl?: string };
  discovery?: {
    resourceMetadata?: unknown;
    authorizationServerUrl?: string;
    authorizationServerMetadata?: unknown;
    dynamicRegistration: boolean;
    clientIdMetadataDocumentSupported: boolean;
    error?: string;
  };
}

/** Sends `initialize` by hand (no credentials) and, on a challenge, runs discovery; stores nothing. */
export async function diagnose(config: RemoteServerConfig, fetchFn: typeof fetch): Promise<DebugReport> {
  const report: DebugReport = { url: redactUrl(config.url), initialize: {} };
  let response: Response;
  try {
    response = await fetchFn(config.url, {
      method: "POST",
      headers: { ...(config.headers ?? {}), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "mcp-edge-debug", version: "0.1.0" } },
      }),
    });
  } catch (error) {
    report.initialize.error = messageOf(error).slice(0, 300);
    return report;
  }
  await response.body?.cancel();
  report.initialize.status = response.status;
  const contentType = response.headers.get("content-type");
  if (contentType) report.initialize.contentType = contentType;
  const challenge = response.headers.get("www-authenticate");
  if (challenge) report.initialize.wwwAuthenticate = challenge;
  // A server that answered opened a session for nothing: close it.
  const sessionId = response.headers.get("mcp-session-id");
  if (response.ok && sessionId) await fetchFn(config.url, { method: "DELETE", headers: { ...(config.headers ?? {}), "mcp-session-id": sessionId } }).then((r) => r.body?.cancel(), () => undefined);
  if (response.status !== 401 && response.status !== 403) return report;
  const params = extractWWWAuthenticateParams(response);
  report.challenge = {
    ...(params.scope ? { scope: params.scope } : {}),
    ...(params.error ? { error: params.error } : {}),
    ...(params.resourceMetadataUrl ? { resourceMetadataUrl: params.resourceMetadataUrl.href } : {}),
  };
  try {
    const info = await discoverOAuthServerInfo(config.url, { ...(params.resourceMetadataUrl ? { resourceMetadataUrl: params.resourceMetadataUrl } : {}), fetchFn });
    const metadata = info.authorizationServerMetadata as { registration_endpoint?: unknown; client_id_metadata_document_supported?: unknown } | undefined;
    report.discovery = {
      ...(info.resourceMetadata ? { resourceMetadata: info.resourceMetadata } : {}),
      authorizationServerUrl: info.authorizationServerUrl,
      ...(metadata ? { authorizationServerMetadata: metadata } : {}),
      dynamicRegistration: typeof metadata?.registration_endpoint === "string",
      clientIdMetadataDocumentSupported: metadata?.client_id_metadata_document_supported === true,
    };
  } catch (error) {
    report.discovery = { dynamicRegistration: false, clientIdMetadataDocumentSupported: false, error: messageOf(error).slice(0, 300) };
  }
  return report;
}
