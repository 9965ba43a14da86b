/**
 * mcp-edge's `OAuthClientProvider`s for the MCP SDK's `auth()`, one per role:
 *
 * - {@link FlowProvider}: one authorization, from `POST …/auth` (discovery, dynamic
 *   registration or a client ID metadata document or a configured client, PKCE, the
 *   authorization URL) to the callback (the code exchange). It keeps everything in
 *   memory; the session puts it in the vault's pending record, then commits on success.
 * - {@link ConnectionAuthProvider}: what a connection's transport uses. `tokens()` hands
 *   out the vault's access token (refreshed there before expiry); when the server still
 *   answers 401/403, the SDK calls `auth()`, and the first thing it asks for,
 *   `discoveryState()`, throws a typed error instead: a connection never starts an
 *   interactive flow, it becomes `needs_auth` (or retries once after a refresh).
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { coversScope, unionScopes } from "../src/core/oauth/scope.js";
import type { ClientInformation, DiscoveryState } from "./credential-records.js";
import type { ConnectionCredentials } from "./connection-credentials.js";

/** The server wants a (new) authorization; `scope` is what to ask for. */
export class AuthorizationRequired extends Error {
  constructor(
    message: string,
    readonly scope: string | undefined,
    readonly stepUp: boolean,
  ) {
    super(message);
    this.name = "AuthorizationRequired";
  }
}

/** The vault refreshed the token the server refused: retry once. */
export class TokenRefreshed extends Error {
  constructor() {
    super("the access token was refreshed; retry");
    this.name = "TokenRefreshed";
  }
}

/** A step-up for this scope already happened and the server still refuses: asking again would loop. */
export class ScopeRefused extends Error {
  constructor(readonly scope: string | undefined) {
    super(`the server refuses with insufficient_scope although the token holds ${scope ? `"${scope}"` : "the scope it asked for"}; not asking again`);
    this.name = "ScopeRefused";
  }
}

/** What the last authorization challenge said (from `WWW-Authenticate`). */
export interface ChallengeInfo {
  status: number;
  scope?: string;
  error?: string;
  resourceMetadataUrl?: URL;
}

export interface FlowProviderOptions {
  redirectUrl: string;
  clientMetadata: OAuthClientMetadata;
  /** https URL of a client ID metadata document (used when the server supports them). */
  clientMetadataUrl?: string;
  /** A configured (pre-registered) client or a registration held from before. */
  client?: ClientInformation;
  state?: string;
  /** Finishing: the verifier and discovery from the pending record. */
  codeVerifier?: string;
  discovery?: DiscoveryState;
}

export class FlowProvider implements OAuthClientProvider {
  client: ClientInformation | undefined;
  verifier: string | undefined;
  discovery: DiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  tokensReceived: OAuthTokens | undefined;
  readonly clientMetadataUrl: string | undefined;

  constructor(private readonly options: FlowProviderOptions) {
    this.client = options.client;
    this.verifier = options.codeVerifier;
    this.discovery = options.discovery;
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.options.clientMetadata;
  }

  state(): string {
    if (!this.options.state) throw new Error("no state for this flow");
    return this.options.state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info as ClientInformation;
  }

  /** A flow never uses held tokens: it exists to get new ones. */
  tokens(): undefined {
    return undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.tokensReceived = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier for this flow");
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state as DiscoveryState;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery as OAuthDiscoveryState | undefined;
  }

  /** Only this flow's memory: committed credentials are never touched by a flow. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
    if (scope === "all" || scope === "tokens") this.tokensReceived = undefined;
  }
}

export class ConnectionAuthProvider implements OAuthClientProvider {
  readonly redirectUrl = undefined;
  readonly clientMetadata: OAuthClientMetadata = { redirect_uris: [] };

  constructor(
    private readonly credentials: ConnectionCredentials,
    private readonly lastChallenge: () => ChallengeInfo | undefined,
  ) {}

  async tokens(): Promise<OAuthTokens | undefined> {
    const grant = await this.credentials.current();
    return grant ? { access_token: grant.accessToken, token_type: grant.tokenType } : undefined;
  }

  /** Called first by the SDK's auth() on a 401/403: decide, never start a flow. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const challenge = this.lastChallenge();
    const held = this.credentials.held;
    if (challenge?.status === 403 && challenge.error === "insufficient_scope") {
      if (held && challenge.scope && coversScope(held.scope, challenge.scope)) throw new ScopeRefused(challenge.scope);
      const scope = unionScopes(held?.scope, challenge.scope);
      throw new AuthorizationRequired(`the server requires more scope${scope ? ` ("${scope}")` : ""}: authorize again (POST …/auth)`, scope, true);
    }
    // The vault refreshes at most once per cooldown; a 401 right after drops the tokens.
    if (held) {
      if ((await this.credentials.rejected()) === "refreshed") throw new TokenRefreshed();
    }
    throw new AuthorizationRequired(
      held ? "the server refused the access token and it could not be refreshed: authorize again (POST …/auth)" : "the server requires OAuth authorization (POST …/auth)",
      challenge?.scope,
      false,
    );
  }

  clientInformation(): undefined {
    return undefined;
  }

  saveTokens(): void {
    // Tokens are only ever written by the vault.
  }

  redirectToAuthorization(): void {
    throw new AuthorizationRequired("the server requires OAuth authorization (POST …/auth)", undefined, false);
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new AuthorizationRequired("the server requires OAuth authorization (POST …/auth)", undefined, false);
  }
}
